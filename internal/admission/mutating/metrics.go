package mutating

import (
	"strings"
	"time"

	pmetrics "github.com/portcullis/portcullis/internal/metrics"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
)

// The error_type label values.
const (
	errorTypeNone        = "no_error"
	errorTypeCompile     = "compile_error"
	errorTypeInvalid     = "invalid_error"
	errorTypeOutOfBudget = "out_of_budget"
)

// errorType classifies a mutation's error for the metrics as
// kube-apiserver does, by its message.
func errorType(err error) string {
	switch {
	case err == nil:
		return errorTypeNone
	case strings.HasPrefix(err.Error(), "compilation"):
		return errorTypeCompile
	case strings.HasPrefix(err.Error(), celenv.ErrOutOfBudgetDetail):
		return errorTypeOutOfBudget
	}
	return errorTypeInvalid
}

// metrics are kube-apiserver's mutating admission policy metrics: every
// mutation applied is counted, with its error type.
type metrics struct {
	checks  *prometheus.CounterVec
	latency *prometheus.HistogramVec
}

var checkLabels = []string{"policy", "policy_binding", "error_type"}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		checks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_mutating_admission_policy_check_total",
			Help: "[ALPHA] Mutation admission policy check total, labeled by policy and further identified by binding.",
		}, checkLabels),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "apiserver_mutating_admission_policy_check_duration_seconds",
			Help: "[ALPHA] Mutation admission latency for individual mutation expressions in seconds, labeled by policy and binding.",
			// kube-apiserver's buckets: from a single field access to an
			// expression near the cost limit.
			Buckets: []float64{0.0000005, 0.001, 0.01, 0.1, 1.0},
		}, checkLabels),
	}
	if reg != nil {
		m.checks = pmetrics.MustRegister(reg, m.checks)
		m.latency = pmetrics.MustRegister(reg, m.latency)
	}
	return m
}

func (m *metrics) observe(policy, binding string, err error, elapsed time.Duration) {
	et := errorType(err)
	m.checks.WithLabelValues(policy, binding, et).Inc()
	m.latency.WithLabelValues(policy, binding, et).Observe(elapsed.Seconds())
}
