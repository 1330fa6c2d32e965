package openapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
)

func get(h http.Handler, target string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestV2Handler(t *testing.T) {
	d, b := mustBuild(t)
	h := d.V2Handler()
	etag := strconv.Quote(mustV2(b).hash)
	tests := []struct {
		name        string
		header      []string
		code        int
		contentType string
	}{
		{"no accept", nil, http.StatusOK, mediaJSON},
		{"json", []string{"Accept", "application/json"}, http.StatusOK, mediaJSON},
		{"kubectl protobuf", []string{"Accept", mediaV2ProtoAlias}, http.StatusOK, mediaV2Proto},
		{"dotted protobuf", []string{"Accept", mediaV2Proto}, http.StatusOK, mediaV2Proto},
		{"preferred protobuf", []string{"Accept", "application/json;q=0.5, " + mediaV2ProtoAlias}, http.StatusOK, mediaV2Proto},
		{"wildcard", []string{"Accept", "*/*"}, http.StatusOK, mediaJSON},
		{"not acceptable", []string{"Accept", "text/html"}, http.StatusNotAcceptable, ""},
		{"cached", []string{"If-None-Match", etag}, http.StatusNotModified, ""},
		{"cached protobuf", []string{"Accept", mediaV2ProtoAlias, "If-None-Match", `"other", ` + etag}, http.StatusNotModified, ""},
		{"stale", []string{"If-None-Match", `"other"`}, http.StatusOK, mediaJSON},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := get(h, "/openapi/v2", tt.header...)
			if w.Code != tt.code {
				t.Fatalf("code %d, want %d: %s", w.Code, tt.code, w.Body)
			}
			if tt.code == http.StatusNotAcceptable {
				return
			}
			if got := w.Header().Get("ETag"); got != etag {
				t.Errorf("etag %q, want %q", got, etag)
			}
			if tt.code != http.StatusOK {
				return
			}
			if got := w.Header().Get("Content-Type"); got != tt.contentType {
				t.Errorf("content type %q, want %q", got, tt.contentType)
			}
			if tt.contentType == mediaJSON {
				if !json.Valid(w.Body.Bytes()) {
					t.Error("invalid JSON")
				}
				return
			}
			var doc openapi_v2.Document
			if err := proto.Unmarshal(w.Body.Bytes(), &doc); err != nil || doc.Swagger != "2.0" {
				t.Errorf("protobuf: %v, swagger %q", err, doc.Swagger)
			}
		})
	}
}

func TestV3Handler(t *testing.T) {
	d, b := mustBuild(t)
	h := d.V3Handler()
	core := b.gvs["api/v1"]
	rbac := b.gvs["apis/rbac.authorization.k8s.io/v1"]

	t.Run("index", func(t *testing.T) {
		for _, path := range []string{"/openapi/v3", "/openapi/v3/"} {
			w := get(h, path)
			if w.Code != http.StatusOK || w.Header().Get("Content-Type") != mediaJSON {
				t.Fatalf("%s: %d %q", path, w.Code, w.Header().Get("Content-Type"))
			}
			var index struct {
				Paths map[string]struct {
					ServerRelativeURL string `json:"serverRelativeURL"`
				} `json:"paths"`
			}
			if err := json.Unmarshal(w.Body.Bytes(), &index); err != nil {
				t.Fatal(err)
			}
			if len(index.Paths) != len(b.gvs) {
				t.Errorf("%d group-versions, want %d", len(index.Paths), len(b.gvs))
			}
			if got, want := index.Paths["api/v1"].ServerRelativeURL, "/openapi/v3/api/v1?hash="+core.json.hash; got != want {
				t.Errorf("api/v1 at %q, want %q", got, want)
			}
		}
	})

	tests := []struct {
		name        string
		target      string
		header      []string
		code        int
		contentType string
		immutable   bool
		location    string
		body        []byte
	}{
		{name: "core", target: "/openapi/v3/api/v1", code: http.StatusOK, contentType: mediaJSON, body: mustPlain(core.json)},
		{name: "group", target: "/openapi/v3/apis/rbac.authorization.k8s.io/v1", code: http.StatusOK, contentType: mediaJSON, body: mustPlain(rbac.json)},
		{name: "current hash", target: "/openapi/v3/api/v1?hash=" + core.json.hash, header: []string{"Accept", "application/json"}, code: http.StatusOK, contentType: mediaJSON, immutable: true, body: mustPlain(core.json)},
		{name: "stale hash", target: "/openapi/v3/api/v1?hash=0BSOLETE", code: http.StatusMovedPermanently, location: "/openapi/v3/api/v1?hash=" + core.json.hash},
		{name: "protobuf", target: "/openapi/v3/api/v1", header: []string{"Accept", mediaV3ProtoAlias}, code: http.StatusOK, contentType: mediaV3Proto},
		{name: "cached", target: "/openapi/v3/api/v1", header: []string{"If-None-Match", strconv.Quote(core.json.hash)}, code: http.StatusNotModified},
		{name: "unknown group-version", target: "/openapi/v3/apis/example.com/v1", code: http.StatusNotFound},
		{name: "partial path", target: "/openapi/v3/apis/apps", code: http.StatusNotFound},
		{name: "not acceptable", target: "/openapi/v3/api/v1", header: []string{"Accept", "text/plain"}, code: http.StatusNotAcceptable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := get(h, tt.target, tt.header...)
			if w.Code != tt.code {
				t.Fatalf("code %d, want %d: %s", w.Code, tt.code, w.Body)
			}
			if got := w.Header().Get("Content-Type"); tt.contentType != "" && got != tt.contentType {
				t.Errorf("content type %q, want %q", got, tt.contentType)
			}
			if got := w.Header().Get("Cache-Control") == "public, immutable"; got != tt.immutable {
				t.Errorf("immutable %v, want %v", got, tt.immutable)
			}
			if got := w.Header().Get("Location"); got != tt.location {
				t.Errorf("location %q, want %q", got, tt.location)
			}
			if tt.body != nil && w.Body.String() != string(tt.body) {
				t.Error("body differs from the built document")
			}
			if tt.contentType == mediaV3Proto {
				var doc openapi_v3.Document
				if err := proto.Unmarshal(w.Body.Bytes(), &doc); err != nil || doc.Openapi != "3.0.0" {
					t.Errorf("protobuf: %v, openapi %q", err, doc.Openapi)
				}
			}
		})
	}
}

func TestHandlersReadOnly(t *testing.T) {
	d := newTestDocuments(t)
	for name, h := range map[string]http.Handler{"/openapi/v2": d.V2Handler(), "/openapi/v3": d.V3Handler()} {
		t.Run(name, func(t *testing.T) {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodPost, name, strings.NewReader("{}")))
			if w.Code != http.StatusMethodNotAllowed || w.Header().Get("Allow") != "GET, HEAD" {
				t.Errorf("code %d allow %q", w.Code, w.Header().Get("Allow"))
			}
			w = httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodHead, name, nil))
			if w.Code != http.StatusOK || w.Body.Len() != 0 {
				t.Errorf("HEAD: code %d, %d bytes", w.Code, w.Body.Len())
			}
		})
	}
}

// TestBuildIsDeterministic matters beyond tidiness: replicas must agree on
// the hashes, or clients sent from one to another would be redirected.
func TestBuildIsDeterministic(t *testing.T) {
	_, a := mustBuild(t)
	_, b := mustBuild(t)
	if mustV2(a).hash != mustV2(b).hash || a.index.hash != b.index.hash {
		t.Fatal("two builds of the same resources differ")
	}
}

// TestConcurrentFirstRequests lets several clients race for the first
// build (run with -race).
func TestConcurrentFirstRequests(t *testing.T) {
	d := newTestDocuments(t)
	done := make(chan int)
	for range 2 {
		go func() { done <- get(d.V2Handler(), "/openapi/v2", "Accept", mediaV2ProtoAlias).Code }()
		go func() { done <- get(d.V3Handler(), "/openapi/v3/api/v1", "Accept", mediaV3ProtoAlias).Code }()
	}
	for range 4 {
		if code := <-done; code != http.StatusOK {
			t.Errorf("code %d", code)
		}
	}
}
