package server

import (
	"time"

	"fmt"
	"github.com/prometheus/client_golang/prometheus"
	"log/slog"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/portcullis/portcullis/internal/authn"
	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/rest"
)

// withRecovery turns a panic in a handler into a 500 for that request
// instead of a dead server. http.ErrAbortHandler keeps its meaning.
func withRecovery(next http.Handler, rs *rest.Responder, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v))
				rs.Error(w, r, apierrors.NewInternalError(fmt.Errorf("%v", v)))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// withRequestState derives the request's Info and gives it a State with
// an audit ID, returned to the client as Audit-Id.
func withRequestState(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Audit-ID")
		if id == "" || len(id) > 128 {
			id = string(uuid.NewUUID())
		}
		st := &request.State{Info: request.Parse(r), AuditID: id, Trace: true}
		if sink, ok := r.Context().Value(stateSinkKey{}).(**request.State); ok {
			*sink = st
		}
		w.Header().Set("Audit-Id", id)
		next.ServeHTTP(w, r.WithContext(request.WithState(r.Context(), st)))
	})
}

// stateSinkKey carries where an in-process caller wants the request's
// State (InProcess.Do), to report the decisions recorded in it.
type stateSinkKey struct{}

// authnMetrics are kube-apiserver's authentication counters.
type authnMetrics struct {
	attempts *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newAuthnMetrics(reg prometheus.Registerer) (*authnMetrics, error) {
	m := &authnMetrics{
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "authentication_attempts",
			Help: "[ALPHA] Counter of authenticated attempts."}, []string{"result"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "authentication_duration_seconds",
			Help: "[ALPHA] Authentication duration in seconds broken out by result.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 15)}, []string{"result"}),
	}
	for _, c := range []prometheus.Collector{m.attempts, m.duration} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *authnMetrics) record(ok bool, err error, start time.Time) {
	result := "success"
	switch {
	case err != nil:
		result = "error"
	case !ok:
		result = "failure"
	}
	m.attempts.WithLabelValues(result).Inc()
	m.duration.WithLabelValues(result).Observe(time.Since(start).Seconds())
}

// withAuthentication sets the request's user or lets failed answer (401).
func withAuthentication(next http.Handler, a authn.Authenticator, m *authnMetrics, failed http.Handler, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := request.StateFrom(r.Context())
		start := time.Now()
		u, ok, err := a.AuthenticateRequest(r)
		m.record(ok, err, start)
		if err != nil {
			log.Debug("authentication failed", "err", err)
		}
		if !ok {
			failed.ServeHTTP(w, r)
			return
		}
		st.User = u
		st.AddStep(request.Step{Stage: request.StageAuthentication, Name: request.AuthenticationMethod(r, u), Outcome: "authenticated",
			Detail: request.DescribeUser(u), Micros: request.Since(start)})
		next.ServeHTTP(w, r)
	})
}

// unauthorized answers a request that failed authentication.
func unauthorized(rs *rest.Responder) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.Error(w, r, apierrors.NewUnauthorized("Unauthorized"))
	})
}
