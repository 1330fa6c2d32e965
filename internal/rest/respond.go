package rest

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/audit"
	"github.com/portcullis/portcullis/internal/request"
)

// Responder writes API objects and errors with content negotiation. It is
// shared by the REST handlers and the other API endpoints (discovery,
// version, the server's filters).
type Responder struct {
	c *codecs
}

// Object writes obj with status code, in the representation the Accept
// header asks for (JSON when it names nothing we serve).
func (rs *Responder) Object(w http.ResponseWriter, r *http.Request, code int, obj runtime.Object) {
	enc, typ := rs.negotiate(r)
	if enc == nil {
		rs.Error(w, r, apierrors.NewGenericServerResponse(http.StatusNotAcceptable, "", schema.GroupResource{}, "", fmt.Sprintf("only the following media types are accepted: %s", strings.Join([]string{mediaJSON, mediaYAML, mediaProtobuf}, ", ")), 0, false))
		return
	}
	rs.write(w, r, code, enc, typ, obj)
}

func (rs *Responder) write(w http.ResponseWriter, r *http.Request, code int, enc runtime.Encoder, typ string, obj runtime.Object) {
	data, err := rs.c.encode(enc, obj)
	if err != nil {
		st := apierrors.NewInternalError(err).Status()
		data, _ = rs.c.encode(rs.c.json, &st)
		typ, code = mediaJSON, http.StatusInternalServerError
	}
	if rec := audit.RecorderFrom(r.Context()); rec != nil {
		if typ == mediaJSON {
			rec.SetResponseObject(data)
		} else if rec.Level() == auditv1.LevelRequestResponse {
			if js, err := rs.c.encode(rs.c.json, obj); err == nil {
				rec.SetResponseObject(js)
			}
		}
	}
	writeWarnings(w, r)
	w.Header().Set("Content-Type", typ)
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		_, _ = w.Write(data)
	}
}

// negotiate picks the encoder for the Accept header, ignoring "as="
// transformations (the caller handles those); nil means nothing acceptable.
func (rs *Responder) negotiate(r *http.Request) (runtime.Encoder, string) {
	pretty := r.URL.Query().Get("pretty") == "true"
	for _, mt := range parseAccept(r.Header.Get("Accept")) {
		if mt.as() != "" {
			continue
		}
		if enc, typ := rs.c.encoderFor(mt.typ, pretty); enc != nil {
			return enc, typ
		}
	}
	return nil, ""
}

// Error writes err as a metav1.Status; errors that are not API errors
// become 500 Internal Server Error without leaking details beyond the text.
func (rs *Responder) Error(w http.ResponseWriter, r *http.Request, err error) {
	status := ErrorToStatus(err)
	audit.RecorderFrom(r.Context()).SetResponseStatus(status)
	enc, typ := rs.negotiate(r)
	if enc == nil {
		enc, typ = rs.c.json, mediaJSON
	}
	rs.write(w, r, int(status.Code), enc, typ, status)
}

// ErrorToStatus converts any error to the Status the API returns for it.
func ErrorToStatus(err error) *metav1.Status {
	var apiStatus apierrors.APIStatus
	if errors.As(err, &apiStatus) {
		s := apiStatus.Status()
		if s.Code == 0 {
			s.Code = http.StatusInternalServerError
		}
		if s.Status == "" {
			s.Status = metav1.StatusFailure
		}
		return &s
	}
	s := apierrors.NewInternalError(err).Status()
	return &s
}

func writeWarnings(w http.ResponseWriter, r *http.Request) {
	st := request.StateFrom(r.Context())
	if st == nil {
		return
	}
	for _, h := range warningHeaders(st.Warnings()) {
		w.Header().Add("Warning", h)
	}
}

// kube-apiserver's bounds on warnings: once their text exceeds
// warningTotalRunes, every warning is cut to warningItemRunes.
const (
	warningTotalRunes = 4 * 1024
	warningItemRunes  = 256
)

// warningHeaders are the Warning headers of a response's warnings (already
// deduplicated), as kube-apiserver's warning recorder writes them: empty
// warnings and those that are not valid UTF-8 or hold control characters
// are dropped; when the texts together exceed warningTotalRunes, all are
// truncated to warningItemRunes, and none is added once that truncated
// total is reached.
func warningHeaders(texts []string) []string {
	var headers, seen []string
	written, truncating := 0, false
	for _, text := range texts {
		if text == "" || (truncating && written >= warningTotalRunes) {
			continue
		}
		seen = append(seen, text)
		n := utf8.RuneCountInString(text)
		if truncating && n > warningItemRunes {
			text, n = string([]rune(text)[:warningItemRunes]), warningItemRunes
		}
		h, ok := warningHeader(text)
		if !ok {
			continue
		}
		if written+n <= warningTotalRunes || truncating {
			written += n
			headers = append(headers, h)
			continue
		}
		// Over the limit: start again with every warning so far cut short.
		truncating, written, headers = true, 0, nil
		for _, t := range seen {
			n := utf8.RuneCountInString(t)
			if n > warningItemRunes {
				t, n = string([]rune(t)[:warningItemRunes]), warningItemRunes
			}
			if h, ok := warningHeader(t); ok {
				written += n
				headers = append(headers, h)
			}
		}
	}
	return headers
}

// warningHeader is a 299 warning with text quoted (quotes and backslashes
// escaped), or false for text that is not valid UTF-8 or holds control
// characters, which kube-apiserver does not send.
func warningHeader(text string) (string, bool) {
	if !utf8.ValidString(text) {
		return "", false
	}
	var b strings.Builder
	b.WriteString(`299 - "`)
	for _, r := range text {
		if unicode.IsControl(r) {
			return "", false
		}
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String(), true
}
