package openapi

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Media types of the documents. Clients ask for the protobuf forms with an
// "@" in the version; kube-apiserver accepts both spellings and answers
// with the dotted one.
const (
	mediaJSON         = "application/json"
	mediaV2Proto      = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
	mediaV2ProtoAlias = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	mediaV3Proto      = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"
	mediaV3ProtoAlias = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"
)

var (
	v2Offers = []string{mediaJSON, mediaV2ProtoAlias, mediaV2Proto}
	v3Offers = []string{mediaJSON, mediaV3ProtoAlias, mediaV3Proto}
)

// handler answers GET and HEAD with answer and the built documents,
// everything else with 405.
func (d *Documents) handler(answer func(w http.ResponseWriter, r *http.Request, b *built)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !readOnly(w, r) {
			return
		}
		b, err := d.build()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		answer(w, r, b)
	})
}

// V2Handler serves GET /openapi/v2: JSON, or protobuf when the Accept
// header asks for it.
func (d *Documents) V2Handler() http.Handler {
	return d.handler(func(w http.ResponseWriter, r *http.Request, b *built) {
		w.Header().Add("Vary", "Accept")
		offer := negotiate(r.Header.Get("Accept"), v2Offers)
		if offer < 0 {
			http.Error(w, "only JSON and protobuf are served", http.StatusNotAcceptable)
			return
		}
		v2, err := b.v2.get()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		// Both forms share the JSON's ETag, as they carry the same
		// document: a cached copy is validated without making the protobuf.
		if offer > 0 {
			serve(w, r, mediaV2Proto, v2.hash, b.modified, nil, func() ([]byte, error) { return b.v2Proto.get(v2, v2ToProto) })
			return
		}
		serve(w, r, mediaJSON, v2.hash, b.modified, v2.gz, v2.plain)
	})
}

// V3Handler serves GET /openapi/v3, the index of the group-versions, and
// /openapi/v3/<api/v1|apis/group/version>, the document of one of them.
// A ?hash= that matches makes the answer cacheable for good; one that does
// not redirects to the current document, as kube-apiserver does.
func (d *Documents) V3Handler() http.Handler {
	return d.handler(func(w http.ResponseWriter, r *http.Request, b *built) {
		key := strings.Trim(strings.TrimPrefix(r.URL.Path, "/openapi/v3"), "/")
		if key == "" {
			serve(w, r, mediaJSON, b.index.hash, b.modified, b.index.gz, b.index.plain)
			return
		}
		g, ok := b.gvs[key]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Add("Vary", "Accept")
		offer := negotiate(r.Header.Get("Accept"), v3Offers)
		if offer < 0 {
			http.Error(w, "only JSON and protobuf are served", http.StatusNotAcceptable)
			return
		}
		if hash := r.URL.Query().Get("hash"); hash != "" {
			if hash != g.json.hash {
				http.Redirect(w, r, serverRelativeURL(key, g.json.hash), http.StatusMovedPermanently)
				return
			}
			w.Header().Set("Cache-Control", "public, immutable")
			w.Header().Set("Expires", time.Now().AddDate(1, 0, 0).UTC().Format(http.TimeFormat))
		}
		if offer > 0 {
			serve(w, r, mediaV3Proto, g.json.hash, b.modified, nil, func() ([]byte, error) { return g.proto.get(g.json, v3ToProto) })
			return
		}
		serve(w, r, mediaJSON, g.json.hash, b.modified, g.json.gz, g.json.plain)
	})
}

// readOnly answers 405 to anything but GET and HEAD.
func readOnly(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	w.Header().Set("Allow", "GET, HEAD")
	http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	return false
}

// serve writes a document with its ETag, answering a matching
// If-None-Match with 304 before the body is even made. gz, when not nil, is
// the body already gzip-compressed, sent as it is to clients that take it.
func serve(w http.ResponseWriter, r *http.Request, contentType, hash string, modified time.Time, gz []byte, body func() ([]byte, error)) {
	etag := strconv.Quote(hash)
	w.Header().Set("ETag", etag)
	if gz != nil {
		w.Header().Add("Vary", "Accept-Encoding")
	}
	if etagMatches(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", contentType)
	if gz != nil && acceptsGzip(r.Header.Get("Accept-Encoding")) {
		w.Header().Set("Content-Encoding", "gzip")
		http.ServeContent(w, r, "", modified, bytes.NewReader(gz))
		return
	}
	data, err := body()
	if err != nil {
		w.Header().Del("Content-Type")
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	http.ServeContent(w, r, "", modified, bytes.NewReader(data))
}

// acceptsGzip reports whether an Accept-Encoding header takes gzip
// (q=0 refuses it).
func acceptsGzip(header string) bool {
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

// etagMatches implements the weak comparison of If-None-Match.
func etagMatches(header, etag string) bool {
	for candidate := range strings.SplitSeq(header, ",") {
		candidate = strings.TrimPrefix(strings.TrimSpace(candidate), "W/")
		if candidate == "*" || candidate == etag {
			return true
		}
	}
	return false
}
