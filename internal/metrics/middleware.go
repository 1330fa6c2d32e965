package metrics

import (
	"bufio"
	"net"
	"net/http"
	"time"

	"github.com/portcullis/portcullis/internal/request"
)

// Middleware records the request metrics of every request it serves. It
// reads request.Info from the request State; without one, it parses the
// request itself.
func (r *Registry) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		start := time.Now()
		var info *request.Info
		if st := request.StateFrom(req.Context()); st != nil && st.Info != nil {
			info = st.Info
		} else {
			info = request.Parse(req) // a wiring bug; still count the request
		}
		sc := scope(info)
		verb := reportedVerb(req, info, sc)

		if isLongRunning(info) {
			g := r.longRunning.WithLabelValues(verb, info.APIGroup, info.APIVersion, info.Resource, info.Subresource, sc, component)
			g.Inc()
			defer g.Dec()
		} else {
			kind := r.mutating
			if isReadOnly(info) {
				kind = r.readOnly
			}
			kind.inc()
			defer kind.dec()
		}

		rw := &responseWriter{ResponseWriter: w}
		completed := false
		defer func() {
			code := rw.code
			switch {
			case code == 0 && !completed:
				code = http.StatusInternalServerError // panicked before answering
			case code == 0:
				code = http.StatusOK // net/http sends 200 for an empty answer
			}
			k := seriesKey{verb: verb, dryRun: dryRun(req), scope: sc, code: codeLabel(code)}
			if info.IsResourceRequest {
				k.resourceKey = resourceKey{info.APIGroup, info.APIVersion, info.Resource, info.Subresource}
			}
			s := r.seriesFor(k)
			s.count.Inc()
			s.latency.Observe(time.Since(start).Seconds())
		}()
		next.ServeHTTP(rw, req)
		completed = true
	})
}

// responseWriter captures the status code. It keeps Flush (watches stream
// through it) and Hijack working, and Unwrap lets http.ResponseController
// reach the writer underneath.
type responseWriter struct {
	http.ResponseWriter
	code int
}

func (w *responseWriter) WriteHeader(code int) {
	// Informational answers (103 Early Hints) come before the real one.
	if w.code == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *responseWriter) Flush() {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
		return
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *responseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	if w.code == 0 {
		w.code = http.StatusSwitchingProtocols
	}
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
