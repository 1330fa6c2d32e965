package checkmetrics

import (
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	pmetrics "github.com/portcullis/portcullis/internal/metrics"
)

// Opts names one metric.
type Opts struct {
	Name, Help string
}

// Metrics are a plugin's check metrics.
type Metrics struct {
	Checks  *prometheus.CounterVec
	Latency *prometheus.HistogramVec
}

// latencyBuckets are kube-apiserver's: from a single field access to an
// expression near the cost limit.
var latencyBuckets = []float64{0.0000005, 0.001, 0.01, 0.1, 1.0}

// New returns the metrics, registered with reg unless it is nil. A
// second plugin of the same kind (the manifest-based one beside the API
// one) registering them gets the registered ones: they share the series.
func New(reg prometheus.Registerer, checks, latency Opts, labels ...string) *Metrics {
	m := &Metrics{
		Checks: prometheus.NewCounterVec(prometheus.CounterOpts{Name: checks.Name, Help: checks.Help}, labels),
		Latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: latency.Name, Help: latency.Help,
			Buckets: latencyBuckets}, labels),
	}
	if reg != nil {
		m.Checks = pmetrics.MustRegister(reg, m.Checks)
		m.Latency = pmetrics.MustRegister(reg, m.Latency)
	}
	return m
}

// Observe counts one check that took elapsed, with the label values in
// the order New was given the labels.
func (m *Metrics) Observe(elapsed time.Duration, labelValues ...string) {
	m.Checks.WithLabelValues(labelValues...).Inc()
	m.Latency.WithLabelValues(labelValues...).Observe(elapsed.Seconds())
}

// The error_type label values.
const (
	ErrorTypeNone        = "no_error"
	ErrorTypeCompile     = "compile_error"
	ErrorTypeInvalid     = "invalid_error"
	ErrorTypeOutOfBudget = "out_of_budget"
)

// ErrorType classifies the message of a failed check as kube-apiserver
// does, by its beginning: anything neither a compile error nor the end of
// the cost budget is invalid_error, a check that evaluated to false too.
func ErrorType(message string) string {
	switch {
	case strings.HasPrefix(message, "compilation"):
		return ErrorTypeCompile
	case strings.HasPrefix(message, celenv.ErrOutOfBudgetDetail):
		return ErrorTypeOutOfBudget
	}
	return ErrorTypeInvalid
}
