package openapi

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

func TestNegotiate(t *testing.T) {
	offers := []string{"application/json", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"}
	tests := map[string]int{
		"":                 0,
		"*/*":              0,
		"*":                0,
		"application/*":    0,
		"application/json": 0,
		"APPLICATION/JSON": 0,
		"application/com.github.proto-openapi.spec.v2@v1.0+protobuf":                         1,
		"application/json;q=0.9, application/com.github.proto-openapi.spec.v2@v1.0+protobuf": 1,
		"application/com.github.proto-openapi.spec.v2@v1.0+protobuf;q=0, */*":                0,
		"text/html, application/*;q=0.2":                                                     0,
		"text/html":                                                                          -1,
		"application/json;q=0":                                                               -1,
		"application/json;q=bogus":                                                           -1,
		"application/json;q=2":                                                               -1,
		"/json, json/, */json":                                                               -1,
		",,,":                                                                                -1,
		"*/*;q=0.1, application/com.github.proto-openapi.spec.v2@v1.0+protobuf;q=0.2": 1,
	}
	for header, want := range tests {
		t.Run(header, func(t *testing.T) {
			if got := negotiate(header, offers); got != want {
				t.Errorf("negotiate(%q) = %d, want %d", header, got, want)
			}
		})
	}
}

func TestETagMatches(t *testing.T) {
	tests := []struct {
		header string
		want   bool
	}{
		{`"abc"`, true},
		{`W/"abc"`, true},
		{`"x", "abc"`, true},
		{`*`, true},
		{`"abcd"`, false},
		{``, false},
		{`abc`, false},
	}
	for _, tt := range tests {
		if got := etagMatches(tt.header, `"abc"`); got != tt.want {
			t.Errorf("etagMatches(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

// FuzzHandlers feeds the parts of a request that the handlers parse —
// path, query and the Accept and If-None-Match headers — and checks that
// they answer with a status they are meant to give.
func FuzzHandlers(f *testing.F) {
	d := newTestDocuments(f)
	v2, v3 := d.V2Handler(), d.V3Handler()
	f.Add("/openapi/v3/api/v1", "hash=ABC", "application/json", `"x"`)
	f.Add("/openapi/v3/apis/apps/v1", "hash=%zz", "application/com.github.proto-openapi.spec.v3@v1.0+protobuf;q=0.5, */*", "")
	f.Add("/openapi/v3//api//v1/", "hash=&hash=1", "*;q=1e9", "*")
	f.Add("/openapi/v2", "", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf", `W/"a", "b"`)
	allowed := map[int]bool{200: true, 301: true, 304: true, 404: true, 406: true}
	f.Fuzz(func(t *testing.T, path, rawQuery, accept, ifNoneMatch string) {
		u := &url.URL{Path: path, RawQuery: rawQuery}
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.URL = u
		r.Header.Set("Accept", accept)
		r.Header.Set("If-None-Match", ifNoneMatch)
		for _, h := range []http.Handler{v2, v3} {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if !allowed[w.Code] {
				t.Fatalf("status %d for %q ? %q, Accept %q", w.Code, path, rawQuery, accept)
			}
		}
	})
}
