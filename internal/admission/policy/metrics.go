package policy

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/portcullis/portcullis/internal/admission/policy/checkmetrics"
)

// The enforcement_action label values.
const (
	enforceAllow = "allow"
	enforceDeny  = "deny"
	enforceAudit = "audit"
	enforceWarn  = "warn"
)

// metrics are kube-apiserver's validating admission policy metrics. Only
// validations that fail or err are counted, as there; observations take
// the policy, binding, error_type and enforcement_action label values.
type metrics = checkmetrics.Metrics

func newMetrics(reg prometheus.Registerer) *metrics {
	return checkmetrics.New(reg,
		checkmetrics.Opts{
			Name: "apiserver_validating_admission_policy_check_total",
			Help: "[BETA] Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.",
		},
		checkmetrics.Opts{
			Name: "apiserver_validating_admission_policy_check_duration_seconds",
			Help: "[BETA] Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.",
		},
		"policy", "policy_binding", "error_type", "enforcement_action")
}
