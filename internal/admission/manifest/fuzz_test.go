package manifest

import (
	"os"
	"path/filepath"
	"testing"
)

func FuzzDecodeFile(f *testing.F) {
	for _, p := range []string{"testdata/vap/list-format-policy.yaml", "testdata/vap/protect-admission-resources.yaml", "testdata/webhook/validating-webhook.yaml"} {
		data, err := os.ReadFile(filepath.FromSlash(p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[null,1,{"apiVersion":"v1","kind":"List","items":[{}]}]}`))
	f.Add([]byte("---\n- 1\n---\nkind: x\n"))
	f.Add([]byte("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBindingList\nitems: [{}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, k := range []Kind{ValidatingAdmissionPolicy, MutatingAdmissionWebhook} {
			objs, err := decodeFile(k, "f.yaml", data)
			if err != nil {
				continue
			}
			for _, d := range objs {
				if d.obj == nil || d.doc < 1 {
					t.Fatalf("bad result %+v", d)
				}
				_ = checkRestrictions(d.obj)
			}
		}
	})
}
