package value

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc/status"

	"github.com/portcullis/portcullis/internal/metrics"
)

const (
	toStorage   = "to_storage"
	fromStorage = "from_storage"
)

// Metrics are kube-apiserver's storage transformation metrics.
type Metrics struct {
	latency *prometheus.HistogramVec
	ops     *prometheus.CounterVec
}

// NewMetrics registers the metrics on reg, or finds them there.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "apiserver_storage_transformation_duration_seconds",
			Help: "[ALPHA] Latencies in seconds of value transformation operations.",
			// Local ciphers take microseconds; a KMS plugin can take
			// hundreds of milliseconds.
			Buckets: prometheus.ExponentialBuckets(5e-6, 2, 25),
		}, []string{"transformation_type", "transformer_prefix"}),
		ops: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_storage_transformation_operations_total",
			Help: "[ALPHA] Total number of transformations. Successful transformation will have a status 'OK' and a varied status string when the transformation fails. The status, resource, and transformation_type fields can be used for alerting purposes. For example, you can monitor for encryption/decryption failures using the transformation_type (e.g., from_storage for decryption and to_storage for encryption). Additionally, these fields can be used to ensure that the correct transformers are applied to each resource.",
		}, []string{"resource", "transformation_type", "transformer_prefix", "status"}),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	if m.latency, err = metrics.Register(reg, m.latency); err != nil {
		return nil, err
	}
	if m.ops, err = metrics.Register(reg, m.ops); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Metrics) record(resource, kind, prefix string, start time.Time, err error) {
	if m == nil {
		return
	}
	m.ops.WithLabelValues(resource, kind, prefix, StatusOf(err)).Inc()
	// As in kube-apiserver, only successful transformations are timed.
	if err == nil {
		m.latency.WithLabelValues(kind, prefix).Observe(time.Since(start).Seconds())
	}
}

// StatusOf is the status label of a transformation or a KMS plugin call: "OK", the gRPC code of a KMS plugin's
// error, or "unknown-non-grpc" for failures outside a plugin call.
func StatusOf(err error) string {
	if err == nil {
		return "OK"
	}
	var s interface{ GRPCStatus() *status.Status }
	if errors.As(err, &s) {
		return s.GRPCStatus().Code().String()
	}
	return "unknown-non-grpc"
}
