package offline

import (
	"bytes"
	"testing"
)

// FuzzDecodeTest feeds AdmissionTest files, which come from users and
// CI checkouts, to the decoder and the expectations: no input may panic
// or hang, and whatever decodes can be checked against a result.
func FuzzDecodeTest(f *testing.F) {
	f.Add([]byte(`apiVersion: portcullis.dev/v1alpha1
kind: AdmissionTest
metadata: {name: t}
cases:
- name: c
  object: {apiVersion: v1, kind: ConfigMap, metadata: {name: x}}
  expect: {allowed: false, code: 422, messageRegex: "a.*b", fields: {"metadata.labels[app.kubernetes.io/name]": x, spec.a.0: null}}
`))
	f.Add([]byte(`apiVersion: portcullis.dev/v1alpha1
kind: AdmissionTest
metadata: {name: t}
cases: [{name: c, expect: {messageRegex: "("}}]
`))
	f.Add([]byte("kind: AdmissionTest\napiVersion: portcullis.dev/v1alpha1\ncases: 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := decodeManifests("fuzz", bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, obj := range objs {
			if obj.GetKind() != TestKind {
				continue
			}
			test, err := decodeTest(obj)
			if err != nil {
				continue
			}
			res := &Result{Object: map[string]any{"metadata": map[string]any{"name": "x"}, "spec": []any{1}}}
			for i := range test.Cases {
				_ = test.Cases[i].Expect.check(res)
			}
		}
	})
}
