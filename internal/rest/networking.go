package rest

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// pdbV1beta1Label is the selector key with which kube-apiserver kept the
// policy/v1beta1 meaning of an empty budget selector (match nothing);
// policy/v1 clients cannot set it, except in that exact selector.
const pdbV1beta1Label = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match"

// prepareNetworkingForCreate does what kube-apiserver's strategies of the
// networking kinds do to a new object beyond the common preparation.
func prepareNetworkingForCreate(obj runtime.Object) {
	switch o := obj.(type) {
	case *discoveryv1.EndpointSlice:
		carryTopology(o, nil)
	case *policyv1.PodDisruptionBudget:
		stripV1beta1Selector(o.Spec.Selector)
	}
}

// prepareNetworkingForUpdate does the same for an update through
// (sub)resource sub; the generation has been carried over or bumped for
// a changed spec already.
func prepareNetworkingForUpdate(sub string, obj, old runtime.Object) {
	switch o := obj.(type) {
	case *discoveryv1.EndpointSlice:
		prev := old.(*discoveryv1.EndpointSlice)
		// A slice has no spec: every change outside metadata, and a change
		// of labels, is a new generation.
		if specEqual(obj, old) && !equality.Semantic.DeepEqual(o.Labels, prev.Labels) {
			o.Generation = prev.Generation + 1
		}
		carryTopology(o, prev)
	case *policyv1.PodDisruptionBudget:
		if sub == "" && !equality.Semantic.DeepEqual(o.Spec.Selector, old.(*policyv1.PodDisruptionBudget).Spec.Selector) {
			stripV1beta1Selector(o.Spec.Selector)
		}
	case *networkingv1.ServiceCIDR:
		if sub == "status" {
			// The allocator's status writes change no metadata either.
			metav1.ResetObjectMetaForStatus(&o.ObjectMeta, &old.(*networkingv1.ServiceCIDR).ObjectMeta)
		}
	}
}

// stripV1beta1Selector removes the policy/v1beta1 marker from a selector
// unless the selector is exactly the marker (the one match-nothing
// selector policy/v1 can express).
func stripV1beta1Selector(sel *metav1.LabelSelector) {
	if sel == nil || len(sel.MatchExpressions) == 0 {
		return
	}
	matchNone := len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 1 &&
		sel.MatchExpressions[0].Key == pdbV1beta1Label && sel.MatchExpressions[0].Operator == metav1.LabelSelectorOpExists &&
		len(sel.MatchExpressions[0].Values) == 0
	if matchNone {
		return
	}
	kept := sel.MatchExpressions[:0]
	for _, e := range sel.MatchExpressions {
		if e.Key != pdbV1beta1Label {
			kept = append(kept, e)
		}
	}
	sel.MatchExpressions = kept
	if len(kept) == 0 {
		sel.MatchExpressions = nil
	}
}

// carryTopology drops the deprecated topology of a slice's endpoints,
// which discovery.k8s.io/v1 clients cannot write. When the endpoints
// change, an endpoint without a node name takes it from its topology's
// hostname if the stored slice already named that node.
func carryTopology(s, old *discoveryv1.EndpointSlice) {
	if old != nil && equality.Semantic.DeepEqual(s.Endpoints, old.Endpoints) {
		return
	}
	known := map[string]bool{}
	if old != nil {
		for _, e := range old.Endpoints {
			if n := e.DeprecatedTopology[corev1.LabelHostname]; n != "" {
				known[n] = true
			}
		}
	}
	for i := range s.Endpoints {
		e := &s.Endpoints[i]
		n, ok := e.DeprecatedTopology[corev1.LabelHostname]
		if e.NodeName == nil && ok && known[n] && len(genericvalidation.NameIsDNSSubdomain(n, false)) == 0 {
			e.NodeName = &n
		}
		e.DeprecatedTopology = nil
	}
}
