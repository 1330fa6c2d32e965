package audit

import (
	"log/slog"
	"net/http"
	"time"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

// FailedAuthentication wraps the handler that answers a request whose
// credentials did not authenticate. As kube-apiserver does, the policy
// judges it as a request without a user, and it is audited in one event
// at the ResponseStarted stage carrying the 401: there is no
// RequestReceived before it and no ResponseComplete after.
func FailedAuthentication(failed http.Handler, sink Sink, p *Policy) http.Handler {
	if sink == nil || p == nil {
		return failed
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		received := time.Now()
		st := stateOf(req)
		d := p.Evaluate(st.Info, nil)
		if !d.Audited() {
			failed.ServeHTTP(w, req)
			return
		}
		rec := newRecorder(sink, d, st, req, received)
		aw := &statusWriter{ResponseWriter: w}
		failed.ServeHTTP(aw, req.WithContext(WithRecorder(req.Context(), rec)))
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if rec.event.ResponseStatus != nil && aw.code != 0 {
			rec.event.ResponseStatus.Code = int32(aw.code)
		}
		rec.done = true
		if err := rec.emit(auditv1.StageResponseStarted); err != nil {
			slog.Error("audit: dropped event", "auditID", st.AuditID, "err", err)
		}
	})
}

// statusWriter remembers the status code written.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}
