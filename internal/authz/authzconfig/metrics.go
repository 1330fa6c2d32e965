package authzconfig

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/portcullis/portcullis/internal/authz/webhook"
	"github.com/portcullis/portcullis/internal/configfile"
)

// metrics are shared by every chain a server builds, across reloads.
type metrics struct {
	decisions *prometheus.CounterVec
	webhook   *webhook.Metrics
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "apiserver_authorization_decisions_total",
			Help: "[ALPHA] Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.",
		}, []string{"type", "name", "decision"}),
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
	return m, nil
}

// newReloadMetrics are the Controller's apiserver_authorization_config_controller_*
// series.
func newReloadMetrics(deps Deps) (*configfile.Metrics, error) {
	m, err := configfile.NewMetrics(deps.Registerer, configfile.MetricsOptions{
		Controller:   "authorization_config_controller",
		ReloadsHelp:  "[BETA] Total number of automatic reloads of authorization configuration split by status and apiserver identity.",
		LastTimeHelp: "[BETA] Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.",
		InfoHelp:     "[ALPHA] Information about the last applied authorization configuration with hash as label, split by apiserver identity.",
		APIServerID:  deps.APIServerID,
	})
	if err != nil {
		return nil, fmt.Errorf("registering authorization metrics: %w", err)
	}
	return m, nil
}
