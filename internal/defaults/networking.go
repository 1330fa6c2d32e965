package defaults

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// networkPolicy makes a policy without policyTypes isolate ingress, and
// egress too when it has egress rules; ports without a protocol are TCP.
func networkPolicy(np *networkingv1.NetworkPolicy) {
	if len(np.Spec.PolicyTypes) == 0 {
		np.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(np.Spec.Egress) > 0 {
			np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
		}
	}
	for i := range np.Spec.Ingress {
		networkPolicyPorts(np.Spec.Ingress[i].Ports)
	}
	for i := range np.Spec.Egress {
		networkPolicyPorts(np.Spec.Egress[i].Ports)
	}
}

func networkPolicyPorts(ports []networkingv1.NetworkPolicyPort) {
	for i := range ports {
		if ports[i].Protocol == nil {
			ports[i].Protocol = ptr(corev1.ProtocolTCP)
		}
	}
}

// ingressClass scopes parameters without a scope to the cluster.
func ingressClass(c *networkingv1.IngressClass) {
	if p := c.Spec.Parameters; p != nil && p.Scope == nil {
		p.Scope = ptr(networkingv1.IngressClassParametersReferenceScopeCluster)
	}
}

// endpointSlice names unnamed ports "" and makes their protocol TCP.
func endpointSlice(s *discoveryv1.EndpointSlice) {
	for i := range s.Ports {
		p := &s.Ports[i]
		if p.Name == nil {
			p.Name = ptr("")
		}
		if p.Protocol == nil {
			p.Protocol = ptr(corev1.ProtocolTCP)
		}
	}
}
