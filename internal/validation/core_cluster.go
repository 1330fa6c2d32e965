package validation

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func validateNamespace(ns *corev1.Namespace) field.ErrorList {
	errs := validateMeta(&ns.ObjectMeta, false, nameIsDNSLabel)
	// The reference reports every finalizer at the unindexed list path.
	p := field.NewPath("spec", "finalizers")
	for _, f := range ns.Spec.Finalizers {
		errs = append(errs, validateFinalizerName(string(f), p)...)
	}
	return errs
}

// validateFinalizerName accepts a qualified name; one without a domain
// must be a standard finalizer ("kubernetes").
func validateFinalizerName(name string, p *field.Path) field.ErrorList {
	errs := qualifiedName(name, p)
	if !strings.Contains(name, "/") && name != string(corev1.FinalizerKubernetes) {
		errs = append(errs, field.Invalid(p, name, "name is neither a standard finalizer name nor is it fully qualified"))
	}
	return errs
}

func validateNode(n *corev1.Node) field.ErrorList {
	errs := validateMeta(&n.ObjectMeta, false, nameIsDNSSubdomain)
	if len(n.Spec.PodCIDRs) > 0 {
		p := field.NewPath("spec", "podCIDRs")
		for i, c := range n.Spec.PodCIDRs {
			errs = append(errs, utilvalidation.IsValidCIDRForLegacyField(p.Index(i), c, strictIPs, nil)...)
		}
		if len(n.Spec.PodCIDRs) > 2 || (len(n.Spec.PodCIDRs) == 2 && sameFamily(n.Spec.PodCIDRs[0], n.Spec.PodCIDRs[1])) {
			errs = append(errs, field.Invalid(p, n.Spec.PodCIDRs, "may specify no more than one CIDR for each IP family"))
		}
	}
	// kube-apiserver reports taints under metadata, not spec.
	return append(errs, validateTaints(n.Spec.Taints, field.NewPath("metadata", "taints"))...)
}

func sameFamily(a, b string) bool {
	return strings.Contains(a, ":") == strings.Contains(b, ":")
}

// internalTaint mirrors the reference's internal type, whose JSON form is
// what its duplicate-taint message shows.
type internalTaint struct {
	Key       string
	Value     string
	Effect    string
	TimeAdded any
}

func validateTaints(taints []corev1.Taint, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[corev1.TaintEffect]map[string]bool{}
	for i, t := range taints {
		ip := p.Index(i)
		errs = append(errs, metav1validation.ValidateLabelName(t.Key, ip.Child("key"))...)
		if msgs := utilvalidation.IsValidLabelValue(t.Value); len(msgs) != 0 {
			errs = append(errs, field.Invalid(ip.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		switch t.Effect {
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		case "":
			errs = append(errs, field.Required(ip.Child("effect"), ""))
		default:
			errs = append(errs, field.NotSupported(ip.Child("effect"), t.Effect, []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}))
		}
		if seen[t.Effect][t.Key] {
			dup := field.Duplicate(ip, internalTaint{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
			dup.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, dup)
			continue
		}
		if seen[t.Effect] == nil {
			seen[t.Effect] = map[string]bool{}
		}
		seen[t.Effect][t.Key] = true
	}
	return errs
}

func validateNodeUpdate(n, old *corev1.Node) field.ErrorList {
	errs := validateMetaUpdate(&n.ObjectMeta, &old.ObjectMeta)
	errs = append(errs, validateNode(n)...)
	// The pod CIDRs and provider ID may be filled in once, then never change.
	if len(old.Spec.PodCIDRs) > 0 {
		changed := len(old.Spec.PodCIDRs) != len(n.Spec.PodCIDRs)
		for i := 0; !changed && i < len(old.Spec.PodCIDRs); i++ {
			changed = old.Spec.PodCIDRs[i] != n.Spec.PodCIDRs[i]
		}
		if changed {
			errs = append(errs, field.Forbidden(field.NewPath("spec", "podCIDRs"), "node updates may not change podCIDR except from \"\" to valid"))
		}
	}
	if old.Spec.ProviderID != "" && old.Spec.ProviderID != n.Spec.ProviderID {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "providerID"), "node updates may not change providerID except from \"\" to valid"))
	}
	return errs
}
