package leaderelection

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/portcullis/portcullis/internal/metrics"
)

// registerStatus registers kube-controller-manager's
// leader_election_master_status on reg, or returns the one already there:
// several electors (one per Lease) share it, labelled by name.
func registerStatus(reg prometheus.Registerer) (*prometheus.GaugeVec, error) {
	return metrics.Register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "leader_election_master_status",
		Help: "[ALPHA] Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
	}, []string{"name"}))
}
