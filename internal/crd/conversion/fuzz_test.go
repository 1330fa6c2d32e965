package conversion

import (
	"net/http"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/portcullis/portcullis/internal/webhookclient"
)

// FuzzAnswer feeds webhook answers (untrusted: status, content type and
// body) through the reading and checking of a conversion, in both review
// versions. Nothing may panic, and an accepted object must be in the
// desired version with the identity of the object sent.
func FuzzAnswer(f *testing.F) {
	const uid = types.UID("6b1f1f1e-0000-4000-8000-000000000001")
	good := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","response":{"uid":"` + string(uid) + `","result":{"status":"Success"},` +
		`"convertedObjects":[{"apiVersion":"stable.example.com/v2","kind":"CronTab","metadata":{"name":"a","namespace":"default","uid":"uid-a","labels":{"x":"y"}},"spec":{"sizeInt":3}}]}}`
	for _, seed := range []struct {
		status int
		ct     string
		body   string
	}{
		{200, "application/json", good},
		{200, "application/yaml", "apiVersion: apiextensions.k8s.io/v1\nkind: ConversionReview\nresponse: {}\n"},
		{200, "application/json", `{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview","response":{"convertedObjects":[{}]}}`},
		{200, "application/json", `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"no"}`},
		{500, "application/json", `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"no","code":500}`},
		{200, "application/vnd.kubernetes.protobuf", "k8s\x00\x0a\x02v1"},
		{404, "text/html", "<html></html>"},
		{200, "bad/;;", "{}"},
		{200, "", `{"response":{"convertedObjects":[{"apiVersion":"stable.example.com/v2","kind":"CronTab","metadata":[]}]}}`},
	} {
		f.Add(seed.status, seed.ct, []byte(seed.body))
	}
	in := cronTab(v1, "a", 3)
	f.Fuzz(func(t *testing.T, status int, ct string, body []byte) {
		resp := &webhookclient.Response{StatusCode: status, Header: http.Header{"Content-Type": {ct}}, Body: body}
		for _, version := range []string{"v1", "v1beta1"} {
			raws, err := decodeResponse(resp, version, uid)
			if err != nil {
				continue
			}
			for i, raw := range raws {
				out, err := accept(in, raw, v2, i)
				if err != nil {
					continue
				}
				if out.GetAPIVersion() != v2.String() || out.GetKind() != in.GetKind() || out.GetName() != in.GetName() ||
					out.GetNamespace() != in.GetNamespace() || out.GetUID() != in.GetUID() {
					t.Fatalf("accepted %v for %v", out.Object, in.Object)
				}
			}
		}
	})
}
