package podsecurity

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"

	"github.com/portcullis/portcullis/internal/admission"
)

// ignoredPodSubresources cannot change a pod's spec. Every other
// subresource (ephemeralcontainers, resize, ones yet to come) carries a pod
// and is evaluated, so a new way to change the spec is checked by default.
var ignoredPodSubresources = map[string]bool{
	"exec":        true,
	"attach":      true,
	"binding":     true,
	"eviction":    true,
	"log":         true,
	"portforward": true,
	"proxy":       true,
	"status":      true,
}

func (p *Plugin) validatePod(ctx context.Context, a *admission.Attributes) decision {
	if ignoredPodSubresources[a.Subresource] {
		return decision{}
	}
	if p.cfg.exemptNamespace(a.Namespace) {
		p.metrics.exemption(a)
		return exempt(exemptNamespace)
	}
	if p.cfg.exemptUser(userName(a)) {
		p.metrics.exemption(a)
		return exempt(exemptUser)
	}
	ns, err := p.namespaces(ctx, a.Namespace)
	if err != nil {
		p.metrics.error(true, a)
		return failed(err, &apierrors.NewInternalError(fmt.Errorf("failed to lookup namespace %q", a.Namespace)).ErrStatus)
	}
	nsPolicy, nsErrs := api.PolicyToEvaluate(ns.Labels, p.cfg.defaults)
	if len(nsErrs) == 0 && nsPolicy.FullyPrivileged() {
		p.metrics.evaluation(decisionAllow, nsPolicy.Enforce, modeEnforce, a)
		return decision{annotations: map[string]string{
			api.EnforcedPolicyAnnotationKey: api.LevelVersion{Level: api.LevelPrivileged, Version: api.LatestVersion()}.String(),
		}}
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		p.metrics.error(true, a)
		return failed(nil, &apierrors.NewBadRequest("failed to decode pod").ErrStatus)
	}
	if a.Operation == admission.Update {
		old, ok := a.OldObject.(*corev1.Pod)
		if !ok {
			p.metrics.error(true, a)
			return failed(nil, &apierrors.NewBadRequest("failed to decode old pod").ErrStatus)
		}
		if !significantPodUpdate(pod, old) {
			return decision{}
		}
	}
	return p.evaluate(nsPolicy, nsErrs.ToAggregate(), &pod.ObjectMeta, &pod.Spec, a, true)
}

// validatePodTemplate warns about and audits a workload's pod template; a
// failure to read or parse anything admits the object with an error
// annotation, since the pods it makes are checked on their own.
func (p *Plugin) validatePodTemplate(ctx context.Context, a *admission.Attributes) decision {
	if a.Subresource != "" {
		return decision{}
	}
	if p.cfg.exemptNamespace(a.Namespace) {
		p.metrics.exemption(a)
		return exempt(exemptNamespace)
	}
	if p.cfg.exemptUser(userName(a)) {
		p.metrics.exemption(a)
		return exempt(exemptUser)
	}
	ns, err := p.namespaces(ctx, a.Namespace)
	if err != nil {
		p.metrics.error(true, a)
		return decision{annotations: map[string]string{
			"error": fmt.Sprintf("failed to lookup namespace %q: %v", a.Namespace, err),
		}}
	}
	nsPolicy, nsErrs := api.PolicyToEvaluate(ns.Labels, p.cfg.defaults)
	if len(nsErrs) == 0 && nsPolicy.Warn.Level == api.LevelPrivileged && nsPolicy.Audit.Level == api.LevelPrivileged {
		return decision{}
	}
	meta, spec, err := podTemplate(a.Object)
	if err != nil {
		p.metrics.error(true, a)
		return decision{annotations: map[string]string{"error": fmt.Sprintf("failed to extract pod template: %v", err)}}
	}
	if meta == nil && spec == nil {
		// A replication controller may have no template at all.
		return decision{}
	}
	return p.evaluate(nsPolicy, nsErrs.ToAggregate(), meta, spec, a, false)
}

// evaluate checks a pod's metadata and spec against the namespace's
// policy: enforce (when asked) refuses, audit annotates, warn warns - the
// warning only when the request is not refused anyway. A mode at the same
// level and version as an earlier one reuses its result.
func (p *Plugin) evaluate(nsPolicy api.Policy, nsErr error, meta *metav1.ObjectMeta, spec *corev1.PodSpec, a *admission.Attributes, enforce bool) decision {
	if p.cfg.exemptRuntimeClass(spec.RuntimeClassName) {
		p.metrics.exemption(a)
		return exempt(exemptRuntimeClass)
	}
	d := decision{annotations: map[string]string{}}
	if nsErr != nil {
		// The labels that failed to parse fall back to restricted for
		// enforce and to privileged for audit and warn.
		d.annotations["error"] = fmt.Sprintf("Failed to parse policy: %v", nsErr)
		p.metrics.error(false, a)
	}
	results := map[api.LevelVersion]policy.AggregateCheckResult{}
	check := func(lv api.LevelVersion) policy.AggregateCheckResult {
		r, ok := results[lv]
		if !ok {
			r = policy.AggregateCheckResults(p.evaluator.EvaluatePod(lv, meta, spec))
			results[lv] = r
		}
		return r
	}
	if enforce {
		d.annotations[api.EnforcedPolicyAnnotationKey] = nsPolicy.Enforce.String()
		if r := check(nsPolicy.Enforce); !r.Allowed {
			d.refusal = forbidden(a, fmt.Errorf("violates PodSecurity %q: %s", nsPolicy.Enforce.String(), r.ForbiddenDetail()))
			p.metrics.evaluation(decisionDeny, nsPolicy.Enforce, modeEnforce, a)
		} else {
			p.metrics.evaluation(decisionAllow, nsPolicy.Enforce, modeEnforce, a)
		}
	}
	if r := check(nsPolicy.Audit); !r.Allowed {
		d.annotations[api.AuditViolationsAnnotationKey] = fmt.Sprintf("would violate PodSecurity %q: %s", nsPolicy.Audit.String(), r.ForbiddenDetail())
		p.metrics.evaluation(decisionDeny, nsPolicy.Audit, modeAudit, a)
	}
	if d.refusal == nil {
		if r := check(nsPolicy.Warn); !r.Allowed {
			d.warnings = append(d.warnings, fmt.Sprintf("would violate PodSecurity %q: %s", nsPolicy.Warn.String(), r.ForbiddenDetail()))
			p.metrics.evaluation(decisionDeny, nsPolicy.Warn, modeWarn, a)
		}
	}
	return d
}

// podTemplate is the pod metadata and spec a workload makes its pods from
// (nil, nil when it has none).
func podTemplate(obj runtime.Object) (*metav1.ObjectMeta, *corev1.PodSpec, error) {
	var t *corev1.PodTemplateSpec
	switch o := obj.(type) {
	case *corev1.PodTemplate:
		t = &o.Template
	case *corev1.ReplicationController:
		t = o.Spec.Template
	case *appsv1.ReplicaSet:
		t = &o.Spec.Template
	case *appsv1.Deployment:
		t = &o.Spec.Template
	case *appsv1.DaemonSet:
		t = &o.Spec.Template
	case *appsv1.StatefulSet:
		t = &o.Spec.Template
	case *batchv1.Job:
		t = &o.Spec.Template
	case *batchv1.CronJob:
		t = &o.Spec.JobTemplate.Spec.Template
	default:
		return nil, nil, fmt.Errorf("unexpected object type: %T", obj)
	}
	if t == nil {
		return nil, nil, nil
	}
	return &t.ObjectMeta, &t.Spec, nil
}

// significantPodUpdate reports whether an update can change what the
// checks look at: on an existing pod only images are mutable (and
// ephemeral containers can be added), so any other update is admitted
// unevaluated, as kube-apiserver does.
func significantPodUpdate(pod, old *corev1.Pod) bool {
	if len(pod.Spec.Containers) != len(old.Spec.Containers) ||
		len(pod.Spec.InitContainers) != len(old.Spec.InitContainers) {
		return true
	}
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Image != old.Spec.Containers[i].Image {
			return true
		}
	}
	for i := range pod.Spec.InitContainers {
		if pod.Spec.InitContainers[i].Image != old.Spec.InitContainers[i].Image {
			return true
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		var before *corev1.EphemeralContainer
		for i := range old.Spec.EphemeralContainers {
			if old.Spec.EphemeralContainers[i].Name == c.Name {
				before = &old.Spec.EphemeralContainers[i]
				break
			}
		}
		if before == nil || before.Image != c.Image {
			return true
		}
	}
	return false
}
