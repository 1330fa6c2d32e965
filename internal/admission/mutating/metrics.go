package mutating

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/portcullis/portcullis/internal/admission/policy/checkmetrics"
)

// errorType classifies a mutation's error for the metrics as
// kube-apiserver does, by its message.
func errorType(err error) string {
	if err == nil {
		return checkmetrics.ErrorTypeNone
	}
	return checkmetrics.ErrorType(err.Error())
}

// metrics are kube-apiserver's mutating admission policy metrics: every
// mutation applied is counted, with its error type; observations take
// the policy, binding and error_type label values.
type metrics = checkmetrics.Metrics

func newMetrics(reg prometheus.Registerer) *metrics {
	return checkmetrics.New(reg,
		checkmetrics.Opts{
			Name: "apiserver_mutating_admission_policy_check_total",
			Help: "[ALPHA] Mutation admission policy check total, labeled by policy and further identified by binding.",
		},
		checkmetrics.Opts{
			Name: "apiserver_mutating_admission_policy_check_duration_seconds",
			Help: "[ALPHA] Mutation admission latency for individual mutation expressions in seconds, labeled by policy and binding.",
		},
		"policy", "policy_binding", "error_type")
}
