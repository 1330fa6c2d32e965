package webhook

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzDecodeResponse: any body is an answer or an ErrResponse, never a
// panic.
func FuzzDecodeResponse(f *testing.F) {
	for _, seed := range []string{
		`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","status":{"allowed":true,"reason":"ok"}}`,
		`{"apiVersion":"authorization.k8s.io/v1beta1","kind":"SubjectAccessReview","status":{"denied":true}}`,
		`{"status":{"allowed":true,"denied":true,"evaluationError":"x"}}`,
		`{"kind":"Status","apiVersion":"v1","status":"Failure"}`,
		`{"apiVersion":"authorization.k8s.io/v2","status":{}}`,
		`{"apiVersion":"a/b/c"}`,
		`{"status":{"allowed":"true"}}`,
		`{"status":null}`,
		`null`, `[]`, `"x"`, ``, `   `, `{`, "\xff\xfe", `{"status":{"reason":"\u0000"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := decodeResponse(data)
		if err != nil {
			if !errors.Is(err, ErrResponse) {
				t.Fatalf("error %v is not ErrResponse", err)
			}
			if st.Allowed || st.Denied || st.Reason != "" {
				t.Fatalf("status %+v returned with an error", st)
			}
			return
		}
		if b := bytes.TrimSpace(data); len(b) == 0 || b[0] != '{' {
			t.Fatalf("accepted a non-object %q", data)
		}
	})
}

// FuzzQuote: error excerpts stay short and printable.
func FuzzQuote(f *testing.F) {
	f.Add([]byte("boom"))
	f.Add(bytes.Repeat([]byte("\xff"), 600))
	f.Fuzz(func(t *testing.T, data []byte) {
		q := quote(data)
		if len(q) > 4*maxErrorBodyBytes+16 {
			t.Fatalf("excerpt of %d bytes", len(q))
		}
	})
}
