package webhook

import (
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the webhook authorizer's metrics, with kube-apiserver's
// names and labels. One Metrics serves every webhook of a server (the
// name label tells them apart) and outlives configuration reloads. A nil
// *Metrics records nothing.
type Metrics struct {
	evaluations  *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	failOpen     *prometheus.CounterVec
	matchErrors  *prometheus.CounterVec
	matchExclude *prometheus.CounterVec
	matchSeconds *prometheus.HistogramVec
}

// NewMetrics creates the metrics and registers them with reg. Registering
// twice with the same registry shares the first registration, so several
// builds of the chain may ask for them.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		evaluations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_authorization_webhook_evaluations_total",
			Help: "[ALPHA] Round-trips to authorization webhooks.",
		}, []string{"name", "result"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_authorization_webhook_duration_seconds",
			Help:    "[ALPHA] Request latency in seconds.",
			Buckets: prometheus.DefBuckets,
		}, []string{"name", "result"}),
		failOpen: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_authorization_webhook_evaluations_fail_open_total",
			Help: "[ALPHA] NoOpinion results due to webhook timeout or error.",
		}, []string{"name", "result"}),
		matchErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_authorization_match_condition_evaluation_errors_total",
			Help: "[ALPHA] Total number of errors when an authorization webhook encounters a match condition error split by authorizer type and name.",
		}, []string{"type", "name"}),
		matchExclude: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_authorization_match_condition_exclusions_total",
			Help: "[ALPHA] Total number of exclusions when an authorization webhook is skipped because match conditions exclude it.",
		}, []string{"type", "name"}),
		matchSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "apiserver_authorization_match_condition_evaluation_seconds",
			Help:    "[ALPHA] Authorization match condition evaluation time in seconds, split by authorizer type and name.",
			Buckets: []float64{0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25},
		}, []string{"type", "name"}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	if m.evaluations, err = Register(reg, m.evaluations); err != nil {
		return nil, err
	}
	if m.duration, err = Register(reg, m.duration); err != nil {
		return nil, err
	}
	if m.failOpen, err = Register(reg, m.failOpen); err != nil {
		return nil, err
	}
	if m.matchErrors, err = Register(reg, m.matchErrors); err != nil {
		return nil, err
	}
	if m.matchExclude, err = Register(reg, m.matchExclude); err != nil {
		return nil, err
	}
	if m.matchSeconds, err = Register(reg, m.matchSeconds); err != nil {
		return nil, err
	}
	return m, nil
}

// Register registers c with reg, or returns the collector already
// registered under the same description.
func Register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	if err == nil {
		return c, nil
	}
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, fmt.Errorf("registering authorization metrics: %w", err)
}

// authorizerType is the type label of the match-condition metrics.
const authorizerType = "Webhook"

func (m *Metrics) evaluation(name, result string, elapsed time.Duration) {
	if m == nil {
		return
	}
	m.evaluations.WithLabelValues(name, result).Inc()
	m.duration.WithLabelValues(name, result).Observe(elapsed.Seconds())
}

func (m *Metrics) failedOpen(name, result string) {
	if m == nil {
		return
	}
	m.failOpen.WithLabelValues(name, result).Inc()
}

func (m *Metrics) matchEvaluated(name string, elapsed time.Duration, failed, excluded bool) {
	if m == nil {
		return
	}
	m.matchSeconds.WithLabelValues(authorizerType, name).Observe(elapsed.Seconds())
	if failed {
		m.matchErrors.WithLabelValues(authorizerType, name).Inc()
	}
	if excluded {
		m.matchExclude.WithLabelValues(authorizerType, name).Inc()
	}
}
