package metrics

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// inflight counts the requests of one kind being served and remembers the
// highest count since the window began.
type inflight struct {
	cur, peak atomic.Int64

	mu          sync.Mutex
	windowStart time.Time
	reported    int64
}

func (g *inflight) inc() {
	n := g.cur.Add(1)
	for {
		p := g.peak.Load()
		if n <= p || g.peak.CompareAndSwap(p, n) {
			return
		}
	}
}

func (g *inflight) dec() { g.cur.Add(-1) }

// window is how long a peak is reported for, as in kube-apiserver, whose
// gauge is the maximum of the last second.
const window = time.Second

// take returns the peak of the current window. A scrape at least a window
// after the previous reset starts a new window at the current count, so
// scrapes close together see the same value.
func (g *inflight) take(now time.Time) int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if now.Sub(g.windowStart) < window {
		return max(g.reported, g.peak.Load())
	}
	g.windowStart = now
	g.reported = g.peak.Swap(g.cur.Load())
	return g.reported
}

// inflightCollector exports apiserver_current_inflight_requests. Long-running
// requests are not counted, as kube-apiserver's max-in-flight filter does not
// count them.
type inflightCollector struct {
	readOnly, mutating *inflight
}

var inflightDesc = prometheus.NewDesc(
	"apiserver_current_inflight_requests",
	"[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
	[]string{"request_kind"}, nil,
)

func (c *inflightCollector) Describe(ch chan<- *prometheus.Desc) { ch <- inflightDesc }

func (c *inflightCollector) Collect(ch chan<- prometheus.Metric) {
	now := time.Now()
	ch <- prometheus.MustNewConstMetric(inflightDesc, prometheus.GaugeValue, float64(c.readOnly.take(now)), "readOnly")
	ch <- prometheus.MustNewConstMetric(inflightDesc, prometheus.GaugeValue, float64(c.mutating.take(now)), "mutating")
}
