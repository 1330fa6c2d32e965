package audit

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/request"
)

// Middleware audits every request that reaches it according to p, writing
// to sink. It must run after the filters that set the request State (Info,
// authenticated User, AuditID) and before impersonation and authorization,
// as in kube-apiserver, so that denied requests are audited too.
//
// A request whose RequestReceived event cannot be stored is refused with
// 500. A panicking handler is recorded in the Panic stage and the panic is
// re-raised for the server's recovery filter (or net/http) to handle.
// With a nil sink or policy, next is returned unchanged.
func Middleware(next http.Handler, sink Sink, p *Policy) http.Handler {
	if sink == nil || p == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		received := time.Now()
		st := stateOf(req)
		d := p.Evaluate(st.Info, st.User)
		if !d.Audited() {
			next.ServeHTTP(w, req)
			return
		}
		rec, err := Begin(sink, d, st, req, received)
		if err != nil {
			slog.Error("audit: refusing request", "auditID", st.AuditID, "err", err)
			writeInternalError(w, "failed to store audit event")
			return
		}
		aw := &responseWriter{ResponseWriter: w, rec: rec, auditID: st.AuditID}
		completed := false
		defer func() {
			var err error
			v := any(nil)
			if !completed {
				v = recover() // nil after runtime.Goexit: not a panic
			}
			if v == nil {
				err = rec.End()
			} else {
				err = rec.Panic(v)
			}
			if err != nil {
				slog.Error("audit: dropped event", "auditID", st.AuditID, "err", err)
			}
			if v != nil {
				panic(v)
			}
		}()
		next.ServeHTTP(aw, req.WithContext(WithRecorder(req.Context(), rec)))
		completed = true
	})
}

// writeInternalError answers with a metav1.Status, as the API does.
func writeInternalError(w http.ResponseWriter, msg string) {
	body, _ := json.Marshal(&metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Message:  "Internal error occurred: " + msg,
		Reason:   metav1.StatusReasonInternalError,
		Details:  &metav1.StatusDetails{Causes: []metav1.StatusCause{{Message: msg}}},
		Code:     http.StatusInternalServerError,
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusInternalServerError)
	_, _ = w.Write(body)
}

// responseWriter tells the Recorder when the response starts. It keeps
// Flush (watches stream through it) and Hijack working, and Unwrap lets
// http.ResponseController reach the writer underneath.
type responseWriter struct {
	http.ResponseWriter
	rec     *Recorder
	auditID string
	started bool
}

func (w *responseWriter) start(code int) {
	if w.started {
		return
	}
	// Informational answers (103 Early Hints) come before the real one.
	if code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		return
	}
	w.started = true
	if err := w.rec.ResponseStarted(code); err != nil {
		slog.Error("audit: dropped event", "auditID", w.auditID, "err", err)
	}
}

func (w *responseWriter) WriteHeader(code int) {
	w.start(code)
	w.ResponseWriter.WriteHeader(code)
}

func (w *responseWriter) Write(b []byte) (int, error) {
	w.start(http.StatusOK)
	return w.ResponseWriter.Write(b)
}

// Flush sends the header (200 if none was written) and buffered data.
func (w *responseWriter) Flush() {
	w.start(http.StatusOK)
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
		return
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack records 101 before the connection is handed over, as
// kube-apiserver does for upgrades (exec, attach, port-forward).
func (w *responseWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.start(http.StatusSwitchingProtocols)
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

func (w *responseWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// isLongRunning is kube-apiserver's long-running check: watches, proxies,
// the streaming subresources and the profiler. Their responses start long
// before they complete, so they get a ResponseStarted event.
func isLongRunning(info *request.Info) bool {
	switch info.Verb {
	case "watch", "proxy":
		return true
	}
	if info.IsResourceRequest {
		switch info.Subresource {
		case "attach", "exec", "proxy", "log", "portforward":
			return true
		}
		return false
	}
	return strings.HasPrefix(info.Path, "/debug/pprof/")
}

// stateOf is the request's State; without one (a wiring bug) the request
// is still audited with what can be known.
func stateOf(req *http.Request) *request.State {
	if st := request.StateFrom(req.Context()); st != nil {
		return st
	}
	return &request.State{Info: request.Parse(req)}
}
