package kmsv2

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/portcullis/portcullis/internal/configfile"
	"github.com/portcullis/portcullis/internal/encryption/value"
	"github.com/portcullis/portcullis/internal/metrics"
)

// The transformation_type label values.
const (
	fromStorageLabel = "from_storage"
	toStorageLabel   = "to_storage"
)

// seriesLimit bounds the key id series a provider keeps, as kube-apiserver
// does: the least recently used ones are deleted, so that a plugin rotating
// its key often cannot grow the metrics without bound.
const seriesLimit = 100

// metricSet holds kube-apiserver's KMS v2 metrics, with their names,
// labels, help texts and buckets.
type metricSet struct {
	keyIDTotal         *prometheus.CounterVec
	keyIDLastUsed      *prometheus.GaugeVec
	keyIDStatusLast    *prometheus.GaugeVec
	kmsLatency         *prometheus.HistogramVec
	invalidKeyID       *prometheus.CounterVec
	dekSourceCacheSize *prometheus.GaugeVec

	dataKeyGeneration         prometheus.Histogram
	dataKeyGenerationFailures prometheus.Counter
	cacheMisses               prometheus.Counter

	provider        string
	apiServerIDHash string
	usage           *lru[usageKey, usageSeries]
	status          *lru[string, prometheus.Gauge]
}

type usageKey struct{ transformation, keyIDHash string }

type usageSeries struct {
	total    prometheus.Counter
	lastUsed prometheus.Gauge
}

func newMetricSet(reg prometheus.Registerer, provider, apiServerID string) (*metricSet, error) {
	m := &metricSet{
		keyIDTotal: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_envelope_encryption_key_id_hash_total",
			Help: "[ALPHA] Number of times a keyID is used split by transformation type, provider, and apiserver identity.",
		}, []string{"transformation_type", "provider_name", "key_id_hash", "apiserver_id_hash"}),
		keyIDLastUsed: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds",
			Help: "[ALPHA] The last time in seconds when a keyID was used.",
		}, []string{"transformation_type", "provider_name", "key_id_hash", "apiserver_id_hash"}),
		keyIDStatusLast: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds",
			Help: "[ALPHA] The last time in seconds when a keyID was returned by the Status RPC call.",
		}, []string{"provider_name", "key_id_hash", "apiserver_id_hash"}),
		kmsLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "apiserver_envelope_encryption_kms_operations_latency_seconds",
			Help: "[ALPHA] KMS operation duration with gRPC error code status total.",
			// From 0.1ms to about 52s: plugin calls are slower than the
			// default buckets assume.
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 20),
		}, []string{"provider_name", "method_name", "grpc_status_code"}),
		invalidKeyID: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_envelope_encryption_invalid_key_id_from_status_total",
			Help: "[ALPHA] Number of times an invalid keyID is returned by the Status RPC call split by error.",
		}, []string{"provider_name", "error"}),
		dekSourceCacheSize: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_envelope_encryption_dek_source_cache_size",
			Help: "[ALPHA] Number of records in data encryption key (DEK) source cache. On a restart, this value is an approximation of the number of decrypt RPC calls the server will make to the KMS plugin.",
		}, []string{"provider_name"}),
		dataKeyGeneration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "apiserver_storage_data_key_generation_duration_seconds",
			Help:    "[ALPHA] Latencies in seconds of data encryption key(DEK) generation operations.",
			Buckets: prometheus.ExponentialBuckets(5e-6, 2, 14),
		}),
		dataKeyGenerationFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "apiserver_storage_data_key_generation_failures_total",
			Help: "[ALPHA] Total number of failed data encryption key(DEK) generation operations.",
		}),
		cacheMisses: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "apiserver_storage_envelope_transformation_cache_misses_total",
			Help: "[ALPHA] Total number of cache misses while accessing key decryption key(KEK).",
		}),
		provider:        provider,
		apiServerIDHash: hashIfNotEmpty(apiServerID),
	}
	if reg != nil {
		var err error
		if m.keyIDTotal, err = metrics.Register(reg, m.keyIDTotal); err != nil {
			return nil, err
		}
		if m.keyIDLastUsed, err = metrics.Register(reg, m.keyIDLastUsed); err != nil {
			return nil, err
		}
		if m.keyIDStatusLast, err = metrics.Register(reg, m.keyIDStatusLast); err != nil {
			return nil, err
		}
		if m.kmsLatency, err = metrics.Register(reg, m.kmsLatency); err != nil {
			return nil, err
		}
		if m.invalidKeyID, err = metrics.Register(reg, m.invalidKeyID); err != nil {
			return nil, err
		}
		if m.dekSourceCacheSize, err = metrics.Register(reg, m.dekSourceCacheSize); err != nil {
			return nil, err
		}
		if m.dataKeyGeneration, err = metrics.Register(reg, m.dataKeyGeneration); err != nil {
			return nil, err
		}
		if m.dataKeyGenerationFailures, err = metrics.Register(reg, m.dataKeyGenerationFailures); err != nil {
			return nil, err
		}
		if m.cacheMisses, err = metrics.Register(reg, m.cacheMisses); err != nil {
			return nil, err
		}
	}
	m.usage = newLRU(seriesLimit, func(k usageKey, _ usageSeries) {
		m.keyIDTotal.DeleteLabelValues(k.transformation, provider, k.keyIDHash, m.apiServerIDHash)
		m.keyIDLastUsed.DeleteLabelValues(k.transformation, provider, k.keyIDHash, m.apiServerIDHash)
	})
	m.status = newLRU(seriesLimit, func(keyIDHash string, _ prometheus.Gauge) {
		m.keyIDStatusLast.DeleteLabelValues(provider, keyIDHash, m.apiServerIDHash)
	})
	return m, nil
}

// recordKeyID counts a read or write with the key id of that hash.
func (m *metricSet) recordKeyID(transformation, keyIDHash string) {
	s := m.usage.getOrAdd(usageKey{transformation, keyIDHash}, func() usageSeries {
		return usageSeries{
			total:    m.keyIDTotal.WithLabelValues(transformation, m.provider, keyIDHash, m.apiServerIDHash),
			lastUsed: m.keyIDLastUsed.WithLabelValues(transformation, m.provider, keyIDHash, m.apiServerIDHash),
		}
	})
	s.total.Inc()
	s.lastUsed.SetToCurrentTime()
}

// recordStatusKeyID notes a valid key id from Status.
func (m *metricSet) recordStatusKeyID(keyIDHash string) {
	m.status.getOrAdd(keyIDHash, func() prometheus.Gauge {
		return m.keyIDStatusLast.WithLabelValues(m.provider, keyIDHash, m.apiServerIDHash)
	}).SetToCurrentTime()
}

// interceptor times every plugin call by method and gRPC code.
func (m *metricSet) interceptor() grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		start := time.Now()
		err := invoker(ctx, method, req, reply, cc, opts...)
		m.kmsLatency.WithLabelValues(m.provider, method, value.StatusOf(err)).Observe(time.Since(start).Seconds())
		return err
	}
}

// hashIfNotEmpty is how key ids and the apiserver id appear in labels and
// logs: "sha256:<hex>", or "" for "".
func hashIfNotEmpty(s string) string { return configfile.Hash([]byte(s)) }

// lru is a small least-recently-used map whose evictions call onEvict.
type lru[K comparable, V any] struct {
	mu      sync.Mutex
	max     int
	order   *list.List // of *lruItem, most recent first
	items   map[K]*list.Element
	onEvict func(K, V)
}

type lruItem[K comparable, V any] struct {
	key K
	val V
}

func newLRU[K comparable, V any](max int, onEvict func(K, V)) *lru[K, V] {
	return &lru[K, V]{max: max, order: list.New(), items: map[K]*list.Element{}, onEvict: onEvict}
}

func (l *lru[K, V]) getOrAdd(k K, make func() V) V {
	l.mu.Lock()
	defer l.mu.Unlock()
	if el, ok := l.items[k]; ok {
		l.order.MoveToFront(el)
		return el.Value.(*lruItem[K, V]).val
	}
	v := make()
	l.items[k] = l.order.PushFront(&lruItem[K, V]{key: k, val: v})
	for l.order.Len() > l.max {
		old := l.order.Remove(l.order.Back()).(*lruItem[K, V])
		delete(l.items, old.key)
		l.onEvict(old.key, old.val)
	}
	return v
}
