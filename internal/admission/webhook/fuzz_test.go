package webhook

import (
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// FuzzDecodeResponse feeds arbitrary webhook answers to the decoder: it
// must return a response or an error, never panic.
func FuzzDecodeResponse(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":true,"patchType":"JSONPatch","patch":"W10="}}`,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","allowed":false,"status":{"code":403,"message":"no"}}}`,
		`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"allowed":true,"patch":"W10="}}`,
		`{"response":null}`, `{`, `null`, `[]`, ``,
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"u","patchType":""}}`,
	} {
		f.Add([]byte(seed), true, false)
		f.Add([]byte(seed), false, true)
	}
	f.Fuzz(func(t *testing.T, body []byte, mutating, beta bool) {
		version := "v1"
		if beta {
			version = "v1beta1"
		}
		resp, err := decodeResponse(body, version, types.UID("u"), mutating)
		if err == nil && resp == nil {
			t.Fatal("nil response without error")
		}
		if err == nil && !mutating && (len(resp.Patch) > 0 || resp.PatchType != nil) {
			t.Fatal("validating response carries a patch")
		}
	})
}
