package registry

import (
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// networkingResources are the service networking objects:
// networking.k8s.io/v1 (ingresses and their classes, network policies,
// service CIDRs and the IP addresses allocated from them),
// discovery.k8s.io/v1 EndpointSlices and policy/v1 PodDisruptionBudgets.
// None has field selectors beyond metadata.name and metadata.namespace.
func networkingResources() []*Resource {
	net := func(res string) schema.GroupVersionResource { return gvr(networkingv1.GroupName, "v1", res) }
	return []*Resource{
		{GVR: net("ingresses"), Kind: "Ingress", Namespaced: true, ShortNames: []string{"ing"}, Status: true, Generation: true,
			New: func() runtime.Object { return &networkingv1.Ingress{} }, NewList: func() runtime.Object { return &networkingv1.IngressList{} }},
		{GVR: net("ingressclasses"), Kind: "IngressClass", Generation: true,
			New: func() runtime.Object { return &networkingv1.IngressClass{} }, NewList: func() runtime.Object { return &networkingv1.IngressClassList{} }},
		{GVR: net("networkpolicies"), Kind: "NetworkPolicy", Namespaced: true, ShortNames: []string{"netpol"}, Generation: true,
			New: func() runtime.Object { return &networkingv1.NetworkPolicy{} }, NewList: func() runtime.Object { return &networkingv1.NetworkPolicyList{} }},
		{GVR: net("ipaddresses"), Kind: "IPAddress", ShortNames: []string{"ip"},
			New: func() runtime.Object { return &networkingv1.IPAddress{} }, NewList: func() runtime.Object { return &networkingv1.IPAddressList{} }},
		{GVR: net("servicecidrs"), Kind: "ServiceCIDR", Status: true,
			New: func() runtime.Object { return &networkingv1.ServiceCIDR{} }, NewList: func() runtime.Object { return &networkingv1.ServiceCIDRList{} }},

		// kube-apiserver refuses unconditional updates of budgets: the
		// eviction API reads them to decide.
		{GVR: gvr(policyv1.GroupName, "v1", "poddisruptionbudgets"), ConditionalUpdate: true, Kind: "PodDisruptionBudget", Namespaced: true, ShortNames: []string{"pdb"}, Status: true, Generation: true,
			New: func() runtime.Object { return &policyv1.PodDisruptionBudget{} }, NewList: func() runtime.Object { return &policyv1.PodDisruptionBudgetList{} }},

		{GVR: gvr(discoveryv1.GroupName, "v1", "endpointslices"), Kind: "EndpointSlice", Namespaced: true, Generation: true,
			New: func() runtime.Object { return &discoveryv1.EndpointSlice{} }, NewList: func() runtime.Object { return &discoveryv1.EndpointSliceList{} }},
	}
}
