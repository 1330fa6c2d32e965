package webhook

import (
	"strconv"
	"time"

	pmetrics "github.com/portcullis/portcullis/internal/metrics"

	"github.com/prometheus/client_golang/prometheus"
)

// The error_type values of the rejection metric.
const (
	rejectionCallingWebhook = "calling_webhook_error"
	rejectionInternal       = "apiserver_internal_error"
	rejectionNone           = "no_error"
)

type metrics struct {
	duration            *prometheus.HistogramVec
	rejections          *prometheus.CounterVec
	failOpen            *prometheus.CounterVec
	requests            *prometheus.CounterVec
	conditionErrors     *prometheus.CounterVec
	conditionExclusions *prometheus.CounterVec
	conditionSeconds    *prometheus.HistogramVec
}

var conditionLabels = []string{"name", "kind", "type", "operation"}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_admission_webhook_admission_duration_seconds",
			Help:    "[STABLE] Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).",
			Buckets: []float64{0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25},
		}, []string{"name", "type", "operation", "rejected"}),
		rejections: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_webhook_rejection_count",
			Help: "[ALPHA] Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation.",
		}, []string{"name", "type", "operation", "error_type", "rejection_code"}),
		failOpen: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_webhook_fail_open_count",
			Help: "[ALPHA] Admission webhook fail open count, identified by name and broken out for each admission type (validating or admit).",
		}, []string{"name", "type"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_webhook_request_total",
			Help: "[ALPHA] Admission webhook request total, identified by name and broken out for each admission type (validating or admit) and operation.",
		}, []string{"name", "type", "operation", "code", "rejected"}),
		conditionErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_match_condition_evaluation_errors_total",
			Help: "[ALPHA] Admission match condition evaluation errors count.",
		}, conditionLabels),
		conditionExclusions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_admission_match_condition_exclusions_total",
			Help: "[ALPHA] Admission match condition evaluation exclusions count.",
		}, conditionLabels),
		conditionSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_admission_match_condition_evaluation_seconds",
			Help:    "[ALPHA] Admission match condition evaluation time in seconds.",
			Buckets: []float64{0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25},
		}, conditionLabels),
	}
	if reg != nil {
		m.duration = pmetrics.MustRegister(reg, m.duration)
		m.rejections = pmetrics.MustRegister(reg, m.rejections)
		m.failOpen = pmetrics.MustRegister(reg, m.failOpen)
		m.requests = pmetrics.MustRegister(reg, m.requests)
		m.conditionErrors = pmetrics.MustRegister(reg, m.conditionErrors)
		m.conditionExclusions = pmetrics.MustRegister(reg, m.conditionExclusions)
		m.conditionSeconds = pmetrics.MustRegister(reg, m.conditionSeconds)
	}
	return m
}

func capCode(code int) string {
	if code > 600 {
		code = 600
	}
	return strconv.Itoa(code)
}

func (m *metrics) observe(name, typ, op string, elapsed time.Duration, rejected bool, code int) {
	r := strconv.FormatBool(rejected)
	m.requests.WithLabelValues(name, typ, op, capCode(code), r).Inc()
	m.duration.WithLabelValues(name, typ, op, r).Observe(elapsed.Seconds())
}

func (m *metrics) reject(name, typ, op, errType string, code int) {
	m.rejections.WithLabelValues(name, typ, op, errType, capCode(code)).Inc()
}
