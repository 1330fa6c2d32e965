package podsecurity

import (
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/pod-security-admission/api"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/metrics"
)

// Modes and decisions, the values of the mode and decision labels.
const (
	modeEnforce = "enforce"
	modeAudit   = "audit"
	modeWarn    = "warn"

	decisionAllow = "allow"
	decisionDeny  = "deny"
)

// recorder counts evaluations, exemptions and errors under kube-apiserver's
// names, labels and help texts (ALPHA metrics of component-base, whose help
// carries the stability level).
type recorder struct {
	// server is the Kubernetes minor served; policies pinned to a later
	// version are counted as "future".
	server      api.Version
	evaluations *prometheus.CounterVec
	exemptions  *prometheus.CounterVec
	errors      *prometheus.CounterVec
}

func newRecorder(reg prometheus.Registerer, server api.Version) (*recorder, error) {
	r := &recorder{
		server: server,
		evaluations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pod_security_evaluations_total",
			Help: "[ALPHA] Number of policy evaluations that occurred, not counting ignored or exempt requests.",
		}, []string{"decision", "policy_level", "policy_version", "mode", "request_operation", "resource", "subresource"}),
		exemptions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pod_security_exemptions_total",
			Help: "[ALPHA] Number of exempt requests, not counting ignored or out of scope requests.",
		}, []string{"request_operation", "resource", "subresource"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "pod_security_errors_total",
			Help: "[ALPHA] Number of errors preventing normal evaluation. Non-fatal errors may result in the latest restricted profile being used for evaluation.",
		}, []string{"fatal", "request_operation", "resource", "subresource"}),
	}
	if reg != nil {
		var err error
		if r.evaluations, err = metrics.Register(reg, r.evaluations); err != nil {
			return nil, err
		}
		if r.exemptions, err = metrics.Register(reg, r.exemptions); err != nil {
			return nil, err
		}
		if r.errors, err = metrics.Register(reg, r.errors); err != nil {
			return nil, err
		}
	}
	// kube-apiserver creates the series of the commonest outcomes at
	// registration, so they are exported at 0 before any request.
	for _, op := range []string{"create", "update"} {
		r.evaluations.WithLabelValues(decisionAllow, string(api.LevelPrivileged), api.VersionLatest, modeEnforce, op, "pod", "")
		r.exemptions.WithLabelValues(op, "pod", "")
		r.exemptions.WithLabelValues(op, "controller", "")
	}
	return r, nil
}

func (r *recorder) evaluation(decision string, lv api.LevelVersion, mode string, a *admission.Attributes) {
	r.evaluations.WithLabelValues(decision, string(lv.Level), r.versionLabel(lv), mode,
		operationLabel(a.Operation), resourceLabel(a), a.Subresource).Inc()
}

func (r *recorder) exemption(a *admission.Attributes) {
	r.exemptions.WithLabelValues(operationLabel(a.Operation), resourceLabel(a), a.Subresource).Inc()
}

func (r *recorder) error(fatal bool, a *admission.Attributes) {
	r.errors.WithLabelValues(strconv.FormatBool(fatal), operationLabel(a.Operation), resourceLabel(a), a.Subresource).Inc()
}

// versionLabel keeps the label's values bounded: privileged is the same at
// every version, and pins past the served version are one "future".
func (r *recorder) versionLabel(lv api.LevelVersion) string {
	switch {
	case lv.Version.Latest() || lv.Level == api.LevelPrivileged:
		return api.VersionLatest
	case r.server.Older(lv.Version):
		return "future"
	}
	return lv.Version.String()
}

func resourceLabel(a *admission.Attributes) string {
	switch a.Resource.GroupResource() {
	case corev1.Resource("pods"):
		return "pod"
	case corev1.Resource("namespaces"):
		return "namespace"
	}
	return "controller"
}

func operationLabel(op admission.Operation) string { return strings.ToLower(string(op)) }
