package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	pmetrics "github.com/portcullis/portcullis/internal/metrics"

	"github.com/prometheus/client_golang/prometheus"
)

const metricPrefix = "apiserver_manifest_admission_config_controller_"

// metrics are the three series of spec 000. The four plugins' watchers share
// one registry, so registering finds and reuses the vectors already there.
type metrics struct {
	reloads *prometheus.CounterVec // status, plugin, apiserver_id_hash
	last    *prometheus.GaugeVec   // status, plugin, apiserver_id_hash
	info    *prometheus.GaugeVec   // plugin, apiserver_id_hash, hash
	plugin  string
	idHash  string
}

func newMetrics(reg prometheus.Registerer, plugin Kind, serverID string) (*metrics, error) {
	m := &metrics{
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricPrefix + "automatic_reloads_total",
			Help: "Total number of automatic reloads of admission manifest configuration split by status, plugin, and apiserver identity.",
		}, []string{"status", "plugin", "apiserver_id_hash"}),
		last: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: metricPrefix + "automatic_reload_last_timestamp_seconds",
			Help: "Timestamp of the last automatic reload of admission manifest configuration split by status, plugin, and apiserver identity.",
		}, []string{"status", "plugin", "apiserver_id_hash"}),
		info: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: metricPrefix + "last_config_info",
			Help: "Information about the last applied admission manifest configuration with hash as label, split by plugin and apiserver identity.",
		}, []string{"plugin", "apiserver_id_hash", "hash"}),
		plugin: string(plugin),
		idHash: idHash(serverID),
	}
	if reg == nil {
		return m, nil
	}
	var err error
	if m.reloads, err = pmetrics.Register(reg, m.reloads); err != nil {
		return nil, err
	}
	if m.last, err = pmetrics.Register(reg, m.last); err != nil {
		return nil, err
	}
	if m.info, err = pmetrics.Register(reg, m.info); err != nil {
		return nil, err
	}
	return m, nil
}

// idHash hides the server's id the way the reference does; an empty id
// stays empty.
func idHash(id string) string {
	if id == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func (m *metrics) failure(now time.Time) {
	m.reloads.WithLabelValues("failure", m.plugin, m.idHash).Inc()
	m.last.WithLabelValues("failure", m.plugin, m.idHash).Set(float64(now.UnixNano()) / 1e9)
}

func (m *metrics) success(now time.Time, hash string) {
	m.reloads.WithLabelValues("success", m.plugin, m.idHash).Inc()
	m.last.WithLabelValues("success", m.plugin, m.idHash).Set(float64(now.UnixNano()) / 1e9)
	// One info series per plugin: the previous hash's series goes.
	m.info.DeletePartialMatch(prometheus.Labels{"plugin": m.plugin})
	m.info.WithLabelValues(m.plugin, m.idHash, hash).Set(1)
}
