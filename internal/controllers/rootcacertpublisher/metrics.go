package rootcacertpublisher

import (
	"errors"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// metrics are kube-controller-manager's root_ca_cert_publisher metrics:
// every namespace sync, counted and timed by the HTTP code of its
// outcome.
type metrics struct {
	syncs    *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		syncs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "root_ca_cert_publisher",
			Name:      "sync_total",
			Help:      "[ALPHA] Number of namespace syncs happened in root ca cert publisher.",
		}, []string{"code"}),
		// kube-controller-manager's help text is the counter's, repeated.
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: "root_ca_cert_publisher",
			Name:      "sync_duration_seconds",
			Help:      "[ALPHA] Number of namespace syncs happened in root ca cert publisher.",
			Buckets:   prometheus.ExponentialBuckets(0.001, 2, 15),
		}, []string{"code"}),
	}
	for _, c := range []prometheus.Collector{m.syncs, m.duration} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *metrics) observe(start time.Time, err error) {
	code := syncCode(err)
	m.duration.WithLabelValues(code).Observe(time.Since(start).Seconds())
	m.syncs.WithLabelValues(code).Inc()
}

// syncCode is the code label: 200 for success, an API error's code, 500
// for anything else.
func syncCode(err error) string {
	if err == nil {
		return "200"
	}
	var se *apierrors.StatusError
	if errors.As(err, &se) && se.Status().Code != 0 {
		return strconv.Itoa(int(se.Status().Code))
	}
	return "500"
}
