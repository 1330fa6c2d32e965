package tokenwebhook

import (
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are kube-apiserver's token cache metrics, which its webhook
// token authenticator records through the cache in front of it (the
// webhook client itself records nothing there). kube-apiserver shares
// them with its cache of the whole token union; registering twice with
// one registry shares the first registration, so that cache may record
// into the same series. A nil *Metrics records nothing.
type Metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	fetches  *prometheus.CounterVec
	active   *prometheus.GaugeVec
}

// Label values, as kube-apiserver's.
const (
	statusHit      = "hit"
	statusMiss     = "miss"
	statusFetchOK  = "ok"
	statusFetchErr = "error"
	statusInFlight = "in_flight"
	statusBlocked  = "blocked"
)

// NewMetrics creates the metrics and registers them with reg; a nil reg
// gives nil Metrics.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	if reg == nil {
		return nil, nil
	}
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "authentication_token_cache_request_total",
			Help: "[ALPHA] ",
		}, []string{"status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "authentication_token_cache_request_duration_seconds",
			Help:    "[ALPHA] ",
			Buckets: prometheus.DefBuckets,
		}, []string{"status"}),
		fetches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "authentication_token_cache_fetch_total",
			Help: "[ALPHA] ",
		}, []string{"status"}),
		active: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "authentication_token_cache_active_fetch_count",
			Help: "[ALPHA] ",
		}, []string{"status"}),
	}
	var err error
	if m.requests, err = register(reg, m.requests); err != nil {
		return nil, err
	}
	if m.latency, err = register(reg, m.latency); err != nil {
		return nil, err
	}
	if m.fetches, err = register(reg, m.fetches); err != nil {
		return nil, err
	}
	if m.active, err = register(reg, m.active); err != nil {
		return nil, err
	}
	return m, nil
}

// register registers c with reg, or returns the collector already
// registered under the same description.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
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
	return c, fmt.Errorf("registering token cache metrics: %w", err)
}

// request records one authentication: answered from the cache (hit) or
// not. kube-apiserver observes whole milliseconds.
func (m *Metrics) request(hit bool, elapsed time.Duration) {
	if m == nil {
		return
	}
	status := statusMiss
	if hit {
		status = statusHit
	}
	m.requests.WithLabelValues(status).Inc()
	m.latency.WithLabelValues(status).Observe(float64(elapsed.Milliseconds()) / 1000)
}

// blocked counts a caller waiting for a fetch; the func ends the wait.
func (m *Metrics) blocked() func() {
	if m == nil {
		return func() {}
	}
	g := m.active.WithLabelValues(statusBlocked)
	g.Inc()
	return g.Dec
}

// fetching counts a call to the webhook in flight; the func ends it,
// saying whether it gave an answer (authenticated or not) or an error.
func (m *Metrics) fetching() func(ok bool) {
	if m == nil {
		return func(bool) {}
	}
	g := m.active.WithLabelValues(statusInFlight)
	g.Inc()
	return func(ok bool) {
		status := statusFetchErr
		if ok {
			status = statusFetchOK
		}
		m.fetches.WithLabelValues(status).Inc()
		g.Dec()
	}
}
