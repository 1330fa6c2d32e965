package probe

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestReady(t *testing.T) {
	for _, tc := range []struct {
		code int
		body string
		want bool
	}{{200, "ok", true}, {200, "not yet", false}, {500, "ok", false}} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/readyz" {
				http.NotFound(w, r)
				return
			}
			w.WriteHeader(tc.code)
			_, _ = w.Write([]byte(tc.body))
		}))
		if got := Ready(context.Background(), srv.Client(), srv.URL); got != tc.want {
			t.Errorf("%d %q: Ready = %v, want %v", tc.code, tc.body, got, tc.want)
		}
		srv.Close()
	}
	if Ready(context.Background(), http.DefaultClient, "http://127.0.0.1:1") {
		t.Error("Ready with nothing listening")
	}
}
