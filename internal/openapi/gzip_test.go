package openapi

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"testing"
)

// TestGzip: the JSON documents go out as stored, gzip-compressed, to
// clients that take gzip, and uncompressed to the others; protobuf is
// never compressed.
func TestGzip(t *testing.T) {
	d, b := mustBuild(t)
	v2, v3 := d.V2Handler(), d.V3Handler()
	core := b.gvs["api/v1"]
	tests := []struct {
		name     string
		h        http.Handler
		target   string
		header   []string
		gzipped  bool
		wantBody []byte
	}{
		{"v2 gzip", v2, "/openapi/v2", []string{"Accept-Encoding", "gzip"}, true, mustPlain(mustV2(b))},
		{"v2 gzip among others", v2, "/openapi/v2", []string{"Accept-Encoding", "deflate, gzip;q=0.8"}, true, mustPlain(mustV2(b))},
		{"v2 no encoding", v2, "/openapi/v2", nil, false, mustPlain(mustV2(b))},
		{"v2 gzip refused", v2, "/openapi/v2", []string{"Accept-Encoding", "gzip;q=0"}, false, mustPlain(mustV2(b))},
		{"v3 group gzip", v3, "/openapi/v3/api/v1", []string{"Accept-Encoding", "gzip"}, true, mustPlain(core.json)},
		{"v3 index gzip", v3, "/openapi/v3", []string{"Accept-Encoding", "gzip"}, true, mustPlain(b.index)},
		{"v2 protobuf", v2, "/openapi/v2", []string{"Accept-Encoding", "gzip", "Accept", mediaV2Proto}, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := get(tt.h, tt.target, tt.header...)
			if w.Code != http.StatusOK {
				t.Fatalf("code %d: %s", w.Code, w.Body)
			}
			body := w.Body.Bytes()
			if got := w.Header().Get("Content-Encoding") == "gzip"; got != tt.gzipped {
				t.Fatalf("gzipped = %v, want %v", got, tt.gzipped)
			}
			if tt.gzipped {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			if tt.wantBody != nil && !bytes.Equal(body, tt.wantBody) {
				t.Fatalf("body differs from the document (%d bytes, want %d)", len(body), len(tt.wantBody))
			}
		})
	}
}
