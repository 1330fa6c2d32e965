package authnconfig

import (
	"sync"
	"time"

	pmetrics "github.com/portcullis/portcullis/internal/metrics"

	"github.com/prometheus/client_golang/prometheus"
)

// The reload metrics, with kube-apiserver's names, labels and help.
const (
	reloadsName   = "apiserver_authentication_config_controller_automatic_reloads_total"
	lastReloadTS  = "apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds"
	lastConfigNam = "apiserver_authentication_config_controller_last_config_info"
)

type metrics struct {
	idHash   string
	reloads  *prometheus.CounterVec
	lastTime *prometheus.GaugeVec
	info     *configInfo
	now      func() time.Time
}

func newMetrics(reg prometheus.Registerer, apiServerID string, now func() time.Time) (*metrics, error) {
	m := &metrics{
		idHash: Hash([]byte(apiServerID)),
		now:    now,
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: reloadsName,
			Help: "[BETA] Total number of automatic reloads of authentication configuration split by status and apiserver identity.",
		}, []string{"status", "apiserver_id_hash"}),
		lastTime: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: lastReloadTS,
			Help: "[BETA] Timestamp of the last automatic reload of authentication configuration split by status and apiserver identity.",
		}, []string{"status", "apiserver_id_hash"}),
		info: &configInfo{desc: prometheus.NewDesc(lastConfigNam,
			"[ALPHA] Information about the last applied authentication configuration with hash as label, split by apiserver identity.",
			[]string{"apiserver_id_hash", "hash"}, nil)},
	}
	if reg == nil {
		return m, nil
	}
	// A second Authenticator on the same registry (a restart within one
	// process, tests) shares the collectors already there.
	var err error
	if m.reloads, err = pmetrics.Register(reg, m.reloads); err != nil {
		return nil, err
	}
	if m.lastTime, err = pmetrics.Register(reg, m.lastTime); err != nil {
		return nil, err
	}
	if m.info, err = pmetrics.Register(reg, m.info); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *metrics) success(hash string) {
	m.reloads.WithLabelValues("success", m.idHash).Inc()
	m.lastTime.WithLabelValues("success", m.idHash).Set(float64(m.now().UnixNano()) / 1e9)
	m.info.set(m.idHash, hash)
}

func (m *metrics) failure() {
	m.reloads.WithLabelValues("failure", m.idHash).Inc()
	m.lastTime.WithLabelValues("failure", m.idHash).Set(float64(m.now().UnixNano()) / 1e9)
}

// configInfo reports only the hash of the configuration in use, so that
// old hashes do not linger as series.
type configInfo struct {
	desc *prometheus.Desc

	mu           sync.Mutex
	idHash, hash string
}

func (c *configInfo) set(idHash, hash string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.idHash, c.hash = idHash, hash
}

func (c *configInfo) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *configInfo) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	idHash, hash := c.idHash, c.hash
	c.mu.Unlock()
	if hash == "" {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, 1, idHash, hash)
}
