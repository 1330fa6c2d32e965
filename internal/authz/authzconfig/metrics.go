package authzconfig

import (
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/portcullis/portcullis/internal/authz/webhook"
)

// metrics are shared by every chain a server builds, across reloads.
type metrics struct {
	decisions  *prometheus.CounterVec
	webhook    *webhook.Metrics
	reloads    *prometheus.CounterVec
	reloadTime *prometheus.GaugeVec
	lastConfig *prometheus.GaugeVec
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_authorization_decisions_total",
			Help: "[ALPHA] Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.",
		}, []string{"type", "name", "decision"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_authorization_config_controller_automatic_reloads_total",
			Help: "[BETA] Total number of automatic reloads of authorization configuration split by status and apiserver identity.",
		}, []string{"status", "apiserver_id_hash"}),
		reloadTime: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds",
			Help: "[BETA] Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.",
		}, []string{"status", "apiserver_id_hash"}),
		lastConfig: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_authorization_config_controller_last_config_info",
			Help: "[ALPHA] Information about the last applied authorization configuration with hash as label, split by apiserver identity.",
		}, []string{"apiserver_id_hash", "hash"}),
	}
	var err error
	if m.webhook, err = webhook.NewMetrics(reg); err != nil {
		return nil, err
	}
	if reg == nil {
		return m, nil
	}
	if m.decisions, err = webhook.Register(reg, m.decisions); err != nil {
		return nil, err
	}
	if m.reloads, err = webhook.Register(reg, m.reloads); err != nil {
		return nil, err
	}
	if m.reloadTime, err = webhook.Register(reg, m.reloadTime); err != nil {
		return nil, err
	}
	if m.lastConfig, err = webhook.Register(reg, m.lastConfig); err != nil {
		return nil, err
	}
	return m, nil
}

// reloaded records the outcome of an automatic reload ("success" or
// "failure").
func (m *metrics) reloaded(status, idHash string, now time.Time) {
	m.reloads.WithLabelValues(status, idHash).Inc()
	m.reloadTime.WithLabelValues(status, idHash).Set(float64(now.UnixNano()) / 1e9)
}

// applied records the hash of the configuration in force.
func (m *metrics) applied(idHash string, data []byte) {
	m.lastConfig.Reset()
	m.lastConfig.WithLabelValues(idHash, hashOf(data)).Set(1)
}

// hashOf is kube-apiserver's label form of a hash; nothing hashes to "".
func hashOf(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	return fmt.Sprintf("sha256:%x", sha256.Sum256(data))
}
