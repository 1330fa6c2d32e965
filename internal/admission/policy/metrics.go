package policy

import (
	"time"

	pmetrics "github.com/portcullis/portcullis/internal/metrics"

	"github.com/prometheus/client_golang/prometheus"
)

// The enforcement_action label values.
const (
	enforceAllow = "allow"
	enforceDeny  = "deny"
	enforceAudit = "audit"
	enforceWarn  = "warn"
)

// metrics are kube-apiserver's validating admission policy metrics. Only
// validations that fail or err are counted, as there.
type metrics struct {
	checks  *prometheus.CounterVec
	latency *prometheus.HistogramVec
}

var checkLabels = []string{"policy", "policy_binding", "error_type", "enforcement_action"}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		checks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_validating_admission_policy_check_total",
			Help: "[BETA] Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.",
		}, checkLabels),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "apiserver_validating_admission_policy_check_duration_seconds",
			Help: "[BETA] Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.",
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

func (m *metrics) observe(policy, binding, errType, enforcement string, elapsed time.Duration) {
	m.checks.WithLabelValues(policy, binding, errType, enforcement).Inc()
	m.latency.WithLabelValues(policy, binding, errType, enforcement).Observe(elapsed.Seconds())
}
