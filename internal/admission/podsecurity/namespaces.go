package podsecurity

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"

	"github.com/portcullis/portcullis/internal/admission"
)

// validateNamespace refuses invalid pod-security labels (on update only
// when they changed, so a namespace labelled before a value became
// invalid can still be edited) and, when the enforce level gets stricter,
// warns about the existing pods that would not be admitted under it.
func (p *Plugin) validateNamespace(ctx context.Context, a *admission.Attributes) decision {
	if a.Subresource != "" {
		return decision{}
	}
	ns, ok := a.Object.(*corev1.Namespace)
	if !ok {
		return failed(nil, &apierrors.NewBadRequest("failed to decode namespace").ErrStatus)
	}
	newPolicy, newErrs := api.PolicyToEvaluate(ns.Labels, p.cfg.defaults)

	if a.Operation == admission.Create {
		if len(newErrs) > 0 {
			return invalid(a, newErrs)
		}
		return p.exemptNamespaceWarning(a.Namespace, ns, newPolicy)
	}

	old, ok := a.OldObject.(*corev1.Namespace)
	if !ok {
		// kube-apiserver's message has the double space.
		return failed(nil, &apierrors.NewBadRequest("failed to decode  old namespace").ErrStatus)
	}
	oldPolicy, oldErrs := api.PolicyToEvaluate(old.Labels, p.cfg.defaults)
	if len(newErrs) > 0 && (len(oldErrs) == 0 || !reflect.DeepEqual(newErrs, oldErrs)) {
		return invalid(a, newErrs)
	}

	// Nothing to dry-run when enforce is unchanged, privileged, or relaxed
	// at the same version.
	switch {
	case newPolicy.Enforce == oldPolicy.Enforce,
		newPolicy.Enforce.Level == api.LevelPrivileged,
		newPolicy.Enforce.Version == oldPolicy.Enforce.Version &&
			api.CompareLevels(newPolicy.Enforce.Level, oldPolicy.Enforce.Level) < 1:
		return decision{}
	}
	if p.cfg.exemptNamespace(a.Namespace) {
		return p.exemptNamespaceWarning(a.Namespace, ns, newPolicy)
	}
	return decision{warnings: p.checkExistingPods(ctx, ns.Name, newPolicy.Enforce)}
}

// exemptNamespaceWarning tells whoever labels an exempt namespace with a
// policy that the policy has no effect (nothing when the namespace is not
// exempt, or its policy is privileged or the default anyway).
func (p *Plugin) exemptNamespaceWarning(requestNamespace string, ns *corev1.Namespace, pol api.Policy) decision {
	if !p.cfg.exemptNamespace(requestNamespace) || pol.FullyPrivileged() || pol.Equivalent(&p.cfg.defaults) {
		return decision{}
	}
	// Only the modes the labels set, and not privileged, are named.
	var modes []string
	for _, m := range []struct {
		name                string
		level, versionLabel string
		lv                  api.LevelVersion
	}{
		{"enforce", api.EnforceLevelLabel, api.EnforceVersionLabel, pol.Enforce},
		{"audit", api.AuditLevelLabel, api.AuditVersionLabel, pol.Audit},
		{"warn", api.WarnLevelLabel, api.WarnVersionLabel, pol.Warn},
	} {
		_, hasLevel := ns.Labels[m.level]
		_, hasVersion := ns.Labels[m.versionLabel]
		if m.lv.Level != api.LevelPrivileged && (hasLevel || hasVersion) {
			modes = append(modes, m.name+"="+m.lv.String())
		}
	}
	return decision{warnings: []string{fmt.Sprintf("namespace %q is exempt from Pod Security, and the policy (%s) will be ignored",
		ns.Name, strings.Join(modes, ", "))}}
}

// checkExistingPods dry-runs the namespace's pods against a new enforce
// level, within kube-apiserver's budget: at most maxPods pods, and
// podTimeout or half of the request's remaining time, whichever is
// shorter. Pods with the same violations are reported together, under the
// lexically first name.
func (p *Plugin) checkExistingPods(ctx context.Context, namespace string, enforce api.LevelVersion) []string {
	timeout := p.podTimeout
	if deadline, ok := ctx.Deadline(); ok {
		if half := time.Until(deadline) / 2; half < timeout {
			timeout = half
		}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	pods, err := p.pods(ctx, namespace)
	if err != nil {
		return []string{"failed to list pods while checking new PodSecurity enforce level"}
	}
	pods = p.prioritize(pods)
	total := len(pods)
	if len(pods) > p.maxPods {
		pods = pods[:p.maxPods]
	}

	type group struct {
		first string // the lexically first pod name
		count int
	}
	var reasons []string
	groups := map[string]*group{}
	checked := len(pods)
	for i, pod := range pods {
		if r := policy.AggregateCheckResults(p.evaluator.EvaluatePod(enforce, &pod.ObjectMeta, &pod.Spec)); !r.Allowed {
			reason := r.ForbiddenReason()
			g, seen := groups[reason]
			if !seen {
				g = &group{first: pod.Name}
				groups[reason] = g
				reasons = append(reasons, reason)
			} else if pod.Name < g.first {
				g.first = pod.Name
			}
			g.count++
		}
		// Checked after the pod, so at least one pod is always evaluated.
		if ctx.Err() != nil {
			checked = i + 1
			break
		}
	}

	var warnings []string
	if checked < total {
		warnings = append(warnings, fmt.Sprintf("new PodSecurity enforce level only checked against the first %d of %d existing pods", checked, total))
	}
	if len(reasons) > 0 {
		warnings = append(warnings, fmt.Sprintf("existing pods in namespace %q violate the new PodSecurity enforce level %q", namespace, enforce.String()))
	}
	podWarnings := make([]string, 0, len(reasons))
	for _, reason := range reasons {
		g := groups[reason]
		switch g.count {
		case 1:
			podWarnings = append(podWarnings, fmt.Sprintf("%s: %s", g.first, reason))
		case 2:
			podWarnings = append(podWarnings, fmt.Sprintf("%s (and 1 other pod): %s", g.first, reason))
		default:
			podWarnings = append(podWarnings, fmt.Sprintf("%s (and %d other pods): %s", g.first, g.count-1, reason))
		}
	}
	sort.Strings(podWarnings)
	return append(warnings, podWarnings...)
}

// prioritize drops pods of exempt runtime classes and puts one pod of
// each controller before the rest of that controller's pods, so a limited
// check sees as many different templates as it can. The list may be a
// cache's, so it is left as it is.
func (p *Plugin) prioritize(pods []*corev1.Pod) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(pods))
	var replicas []*corev1.Pod
	seen := map[types.UID]bool{}
	for _, pod := range pods {
		if p.cfg.exemptRuntimeClass(pod.Spec.RuntimeClassName) {
			continue
		}
		ref := metav1.GetControllerOfNoCopy(pod)
		switch {
		case ref == nil:
			out = append(out, pod)
		case seen[ref.UID]:
			replicas = append(replicas, pod)
		default:
			seen[ref.UID] = true
			out = append(out, pod)
		}
	}
	return append(out, replicas...)
}
