package configfile

import (
	"math"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/portcullis/portcullis/internal/metrics"
)

// Metrics are a reload controller's metrics, named
// apiserver_<Controller>_automatic_reloads_total,
// ..._automatic_reload_last_timestamp_seconds and ..._last_config_info.
type Metrics struct {
	idHash   string
	reloads  *prometheus.CounterVec
	lastTime *prometheus.GaugeVec
	info     *configInfo
	now      func() time.Time
}

// MetricsOptions name and describe the metrics.
type MetricsOptions struct {
	// Controller is the name's middle part, "encryption_config_controller".
	Controller string
	// ReloadsHelp, LastTimeHelp and InfoHelp are the help texts.
	ReloadsHelp, LastTimeHelp, InfoHelp string
	// APIServerID is hashed into the apiserver_id_hash label.
	APIServerID string
	// ConstLabels are added to every series, for controllers that share
	// the metric names: {"plugin": "ValidatingAdmissionPolicy"}. Each set
	// of values registers collectors of its own.
	ConstLabels prometheus.Labels
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// NewMetrics registers the metrics on reg (nil: unregistered), or finds
// them there.
func NewMetrics(reg prometheus.Registerer, o MetricsOptions) (*Metrics, error) {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	prefix := "apiserver_" + o.Controller + "_"
	m := &Metrics{
		idHash: Hash([]byte(o.APIServerID)),
		now:    now,
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: prefix + "automatic_reloads_total", Help: o.ReloadsHelp, ConstLabels: o.ConstLabels,
		}, []string{"status", "apiserver_id_hash"}),
		lastTime: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: prefix + "automatic_reload_last_timestamp_seconds", Help: o.LastTimeHelp, ConstLabels: o.ConstLabels,
		}, []string{"status", "apiserver_id_hash"}),
		info: &configInfo{desc: prometheus.NewDesc(prefix+"last_config_info", o.InfoHelp,
			[]string{"apiserver_id_hash", "hash"}, o.ConstLabels)},
	}
	if reg == nil {
		return m, nil
	}
	var err error
	if m.reloads, err = metrics.Register(reg, m.reloads); err != nil {
		return nil, err
	}
	if m.lastTime, err = metrics.Register(reg, m.lastTime); err != nil {
		return nil, err
	}
	if m.info, err = metrics.Register(reg, m.info); err != nil {
		return nil, err
	}
	return m, nil
}

// Success records a reload that applied content of the given hash.
func (m *Metrics) Success(hash string) {
	if m == nil {
		return
	}
	m.reloads.WithLabelValues("success", m.idHash).Inc()
	m.lastTime.WithLabelValues("success", m.idHash).Set(float64(m.now().UnixNano()) / 1e9)
	m.info.set(m.idHash, hash)
}

// Failure records a reload that kept the configuration in use.
func (m *Metrics) Failure() {
	if m == nil {
		return
	}
	m.reloads.WithLabelValues("failure", m.idHash).Inc()
	m.lastTime.WithLabelValues("failure", m.idHash).Set(float64(m.now().UnixNano()) / 1e9)
}

// Loaded records the configuration in use at start, which is no reload.
func (m *Metrics) Loaded(hash string) {
	if m == nil {
		return
	}
	m.info.set(m.idHash, hash)
}

// Reloads reads back the number of reloads that ended with status
// ("success" or "failure") and the time of the last one (zero when there
// was none), without creating their series. Tests use it.
func (m *Metrics) Reloads(status string) (count float64, last time.Time) {
	if m == nil {
		return 0, time.Time{}
	}
	count = m.value(m.reloads, status)
	if ts := m.value(m.lastTime, status); ts != 0 {
		sec, frac := math.Modf(ts)
		last = time.Unix(int64(sec), int64(frac*1e9))
	}
	return count, last
}

// value is the counter or gauge of c labelled status and this server.
func (m *Metrics) value(c prometheus.Collector, status string) float64 {
	ch := make(chan prometheus.Metric)
	go func() {
		c.Collect(ch)
		close(ch)
	}()
	var v float64
	for pm := range ch {
		var d dto.Metric
		if pm.Write(&d) != nil || !hasLabels(d.GetLabel(), "status", status, "apiserver_id_hash", m.idHash) {
			continue
		}
		v = d.GetCounter().GetValue() + d.GetGauge().GetValue()
	}
	return v
}

// hasLabels reports whether labels hold each name, value pair of want.
func hasLabels(labels []*dto.LabelPair, want ...string) bool {
	n := 0
	for _, l := range labels {
		for i := 0; i+1 < len(want); i += 2 {
			if l.GetName() == want[i] && l.GetValue() == want[i+1] {
				n++
			}
		}
	}
	return n == len(want)/2
}

// configInfo reports only the hash of the configuration in use, so that
// old hashes do not linger as series. It reports nothing until a
// configuration is recorded; after that even the "" of empty content (an
// empty manifest directory) is a hash.
type configInfo struct {
	desc *prometheus.Desc

	mu           sync.Mutex
	recorded     bool
	idHash, hash string
}

func (c *configInfo) set(idHash, hash string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recorded, c.idHash, c.hash = true, idHash, hash
}

func (c *configInfo) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *configInfo) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	recorded, idHash, hash := c.recorded, c.idHash, c.hash
	c.mu.Unlock()
	if !recorded {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, 1, idHash, hash)
}
