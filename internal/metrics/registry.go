package metrics

import (
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// defaultMaxResources caps the distinct (group, version, resource,
// subresource) label sets; requests for further ones are counted under
// resource "other". Far above what the built-in APIs and many CRDs need.
const defaultMaxResources = 5000

// overflowResource is the resource label once maxResources is reached.
const overflowResource = "other"

// Registry holds the server's metrics and serves them.
type Registry struct {
	reg *prometheus.Registry

	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	longRunning *prometheus.GaugeVec
	readOnly    *inflight
	mutating    *inflight

	// series caches the metrics of each label set: looking them up in the
	// vectors would allocate on every request.
	mu           sync.RWMutex
	series       map[seriesKey]series
	resources    map[resourceKey]struct{}
	maxResources int
}

type resourceKey struct {
	group, version, resource, subresource string
}

type seriesKey struct {
	resourceKey
	verb, dryRun, scope, code string
}

type series struct {
	count   prometheus.Counter
	latency prometheus.Observer
}

// NewRegistry returns a registry with the Go runtime, process and request
// metrics registered.
func NewRegistry() *Registry {
	r := &Registry{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_request_total",
			Help: "[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
		}, []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "apiserver_request_duration_seconds",
			Help: "[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
			// kube-apiserver's buckets, fine enough for the latency SLOs.
			Buckets: []float64{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3,
				4, 5, 6, 8, 10, 15, 20, 30, 45, 60},
		}, []string{"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"}),
		longRunning: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_longrunning_requests",
			Help: "[STABLE] Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
		}, []string{"verb", "group", "version", "resource", "subresource", "scope", "component"}),
		readOnly:     &inflight{},
		mutating:     &inflight{},
		series:       map[seriesKey]series{},
		resources:    map[resourceKey]struct{}{},
		maxResources: defaultMaxResources,
	}
	r.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		r.requests,
		r.latency,
		r.longRunning,
		&inflightCollector{readOnly: r.readOnly, mutating: r.mutating},
	)
	return r
}

// Handler serves the metrics in the Prometheus text (or negotiated) format.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Prometheus is where other packages register their metrics.
func (r *Registry) Prometheus() prometheus.Registerer { return r.reg }

// Gatherer reads the registered metrics (tests, debugging).
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }

// seriesFor returns the metrics of a label set, creating them on first use.
func (r *Registry) seriesFor(k seriesKey) series {
	r.mu.RLock()
	s, ok := r.series[k]
	if !ok {
		// Past the cap, unknown resources share one series; find it here
		// so that they do not all queue for the write lock.
		if _, known := r.resources[k.resourceKey]; !known && len(r.resources) >= r.maxResources {
			k.resourceKey = resourceKey{resource: overflowResource}
			s, ok = r.series[k]
		}
	}
	r.mu.RUnlock()
	if ok {
		return s
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, known := r.resources[k.resourceKey]; !known {
		if len(r.resources) >= r.maxResources {
			k.resourceKey = resourceKey{resource: overflowResource}
		} else {
			r.resources[k.resourceKey] = struct{}{}
		}
	}
	if s, ok := r.series[k]; ok {
		return s
	}
	s = series{
		count:   r.requests.WithLabelValues(k.verb, k.dryRun, k.group, k.version, k.resource, k.subresource, k.scope, component, k.code),
		latency: r.latency.WithLabelValues(k.verb, k.dryRun, k.group, k.version, k.resource, k.subresource, k.scope, component),
	}
	r.series[k] = s
	return s
}
