package tokenwebhook

import (
	"context"
	"net/http"
	"testing"
)

// fuzzBody answers every request with the body under test.
type fuzzBody struct{ body chan []byte }

func (f fuzzBody) ServeHTTP(rw http.ResponseWriter, _ *http.Request) {
	rw.Header().Set("Content-Type", "application/json")
	_, _ = rw.Write(<-f.body)
}

// FuzzAnswer feeds arbitrary answers through the decoding of both
// versions (bypassing the cache, whose panic guard would hide a crash):
// nothing panics, and only an authenticated answer yields a user.
func FuzzAnswer(f *testing.F) {
	for _, s := range []string{
		allowedV1, deniedV1, ``, `null`, `[]`, `{}`, `{"status":null}`,
		`{"status":{"authenticated":true,"user":{"extra":{"k":null}}}}`,
		`{"apiVersion":"authentication.k8s.io/v1beta1","kind":"TokenReview","status":{"authenticated":true,"audiences":["x"]}}`,
		`{"kind":"Status","apiVersion":"v1","status":"Failure","code":500}`,
		"apiVersion: v1\nkind: Status\n",
	} {
		f.Add([]byte(s))
	}
	body := fuzzBody{body: make(chan []byte, 1)}
	path, _ := serve(f, body)
	var auths []*Authenticator
	for _, v := range []string{"v1", "v1beta1"} {
		a, err := New(Config{KubeconfigFile: path, Version: v, Clock: newFakeClock(), Logger: discard(), Audiences: []string{"api"}})
		if err != nil {
			f.Fatal(err)
		}
		auths = append(auths, a)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, a := range auths {
			body.body <- data
			rec := a.authenticate(context.Background(), "t0k3n")
			if rec.ok && (rec.err != nil || rec.resp.User == nil) {
				t.Fatalf("authenticated with error %v, user %v", rec.err, rec.resp.User)
			}
			if !rec.ok && rec.resp.User != nil {
				t.Fatalf("a user %v without authentication", rec.resp.User)
			}
		}
	})
}
