package validation

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestNetworkingCreate(t *testing.T) {
	prefix := networkingv1.PathTypePrefix
	backend := networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}
	ipv4 := discoveryv1.AddressTypeIPv4
	tests := []struct {
		name string
		obj  runtime.Object
		want []string
	}{
		{"valid ingress", &networkingv1.Ingress{ObjectMeta: omNS("i", "ns"), Spec: networkingv1.IngressSpec{DefaultBackend: &backend}}, nil},
		{"ingress without rules or backend", &networkingv1.Ingress{ObjectMeta: omNS("i", "ns")},
			[]string{"spec: Invalid value: null: either `defaultBackend` or `rules` must be specified"}},
		{"ingress path checks", &networkingv1.Ingress{ObjectMeta: omNS("i", "ns"), Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{
			Host: "1.2.3.4",
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
				{Path: "a//b", PathType: &prefix, Backend: backend},
				{Path: "/", Backend: backend},
			}}},
		}}}},
			[]string{
				`spec.rules[0].host: Invalid value: "1.2.3.4": must be a DNS name, not an IP address`,
				`spec.rules[0].http.paths[0].path: Invalid value: "a//b": must be an absolute path`,
				`spec.rules[0].http.paths[0].path: Invalid value: "a//b": must not contain '//'`,
				`spec.rules[0].http.paths[1].pathType: Required value: pathType must be specified`,
			}},
		{"ingress class annotation must match", &networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Name: "i", Namespace: "ns", Annotations: map[string]string{"kubernetes.io/ingress.class": "a"}},
			Spec:       networkingv1.IngressSpec{DefaultBackend: &backend, IngressClassName: ptr("b")}},
			[]string{"annotations.kubernetes.io/ingress.class: Invalid value: \"a\": must match `ingressClassName` when both are specified"}},
		// The declarative requirements follow the hand-written checks.
		{"ingress class parameters", &networkingv1.IngressClass{ObjectMeta: om("c"), Spec: networkingv1.IngressClassSpec{
			Controller: "example.com/c", Parameters: &networkingv1.IngressClassParametersReference{APIGroup: ptr("Bad"), Scope: ptr("Cluster")}}},
			[]string{
				`spec.parameters.apiGroup: Invalid value: "Bad": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
				`spec.parameters.kind: Required value`,
				`spec.parameters.name: Required value`,
			}},
		{"network policy peers", &networkingv1.NetworkPolicy{ObjectMeta: omNS("p", "ns"), Spec: networkingv1.NetworkPolicySpec{
			Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{
				{IPBlock: &networkingv1.IPBlock{}},
				{},
				{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8", Except: []string{"11.0.0.0/8"}}},
				{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.1/8"}},
			}}},
			PolicyTypes: []networkingv1.PolicyType{"Ingress", "Sideways"},
		}},
			[]string{
				`spec.ingress[0].from[1]: Required value: must specify a peer`,
				`spec.ingress[0].from[2].ipBlock.except[0]: Invalid value: "11.0.0.0/8": must be a strict subset of ` + "`cidr`",
				`spec.ingress[0].from[3].ipBlock.cidr: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length`,
				`spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"`,
				`spec.ingress[0].from[0].ipBlock.cidr: Required value`,
			}},
		{"ip address names are canonical", &networkingv1.IPAddress{ObjectMeta: om("2001:db8::0:1"), Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Resource: "services", Name: "s"}}},
			[]string{`metadata.name: Invalid value: "2001:db8::0:1": must be in canonical form ("2001:db8::1")`}},
		{"ip address parent parts", &networkingv1.IPAddress{ObjectMeta: om("192.0.2.1"), Spec: networkingv1.IPAddressSpec{ParentRef: &networkingv1.ParentReference{Namespace: "a/b"}}},
			[]string{
				`spec.parentRef.namespace: Invalid value: "a/b": may not contain '/'`,
				`spec.parentRef.resource: Required value`,
				`spec.parentRef.name: Required value`,
			}},
		{"service cidr of one family twice", &networkingv1.ServiceCIDR{ObjectMeta: om("c"), Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.0.0.0/24", "10.1.0.0/24"}}},
			[]string{`spec.cidrs: Invalid value: ["10.0.0.0/24","10.1.0.0/24"]: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64`}},
		{"budget with both bounds", &policyv1.PodDisruptionBudget{ObjectMeta: omNS("b", "ns"), Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: ptr(intstr.FromString("150%")), MaxUnavailable: ptr(intstr.FromInt32(1))}},
			[]string{
				`spec: Invalid value: {"MinAvailable":"150%","Selector":null,"MaxUnavailable":1,"UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set`,
				`spec.minAvailable: Invalid value: "150%": must not be greater than 100%`,
			}},
		// A budget's name is checked only as a path segment, once its spec is valid.
		{"budget names are path segments", &policyv1.PodDisruptionBudget{ObjectMeta: omNS("Bad_Name", "ns")}, nil},
		{"endpoint slice", &discoveryv1.EndpointSlice{ObjectMeta: omNS("s", "ns"), AddressType: "Foo",
			Endpoints: []discoveryv1.Endpoint{{}}, Ports: []discoveryv1.EndpointPort{{Name: ptr("a"), Protocol: ptr(corev1.ProtocolTCP)}, {Name: ptr("a"), Protocol: ptr(corev1.ProtocolTCP)}}},
			[]string{
				`ports[1].name: Duplicate value: "a"`,
				`addressType: Unsupported value: "Foo": supported values: "FQDN", "IPv4", "IPv6"`,
				`endpoints[0].addresses: Required value`,
			}},
		{"endpoint slice addresses", &discoveryv1.EndpointSlice{ObjectMeta: omNS("s", "ns"), AddressType: ipv4,
			Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"2001:db8::1", "127.0.0.1"}}}},
			[]string{
				`endpoints[0].addresses: Invalid value: "2001:db8::1": must be an IPv4 address`,
				`endpoints[0].addresses[1]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { expectErrors(t, Create(tt.obj), tt.want) })
	}
}

func TestNetworkingUpdate(t *testing.T) {
	ref := &networkingv1.ParentReference{Resource: "services", Name: "s"}
	ip := func(r *networkingv1.ParentReference) *networkingv1.IPAddress {
		return &networkingv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Name: "192.0.2.1", ResourceVersion: "1"}, Spec: networkingv1.IPAddressSpec{ParentRef: r}}
	}
	cidr := func(cidrs ...string) *networkingv1.ServiceCIDR {
		return &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "1"}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: cidrs}}
	}
	slice := func(t discoveryv1.AddressType) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", ResourceVersion: "1"}, AddressType: t}
	}
	class := func(controller string) *networkingv1.IngressClass {
		return &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "1"}, Spec: networkingv1.IngressClassSpec{Controller: controller}}
	}
	tests := []struct {
		name     string
		obj, old runtime.Object
		want     []string
	}{
		{"ip address parent fixed", ip(&networkingv1.ParentReference{Resource: "services", Name: "t"}), ip(ref),
			[]string{`spec.parentRef: Invalid value: null: field is immutable`}},
		{"ip address parent removed", ip(nil), ip(ref),
			[]string{`spec.parentRef: Required value`, `spec.parentRef: Invalid value: null: field is immutable`}},
		{"changed parent's requirements stay in place", ip(&networkingv1.ParentReference{Group: "Bad_Group"}), ip(ref),
			[]string{
				`spec.parentRef.group: Invalid value: "Bad_Group": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
				`spec.parentRef.resource: Required value`,
				`spec.parentRef.name: Required value`,
				`spec.parentRef: Invalid value: null: field is immutable`,
			}},
		{"service cidr gains a family", cidr("10.0.0.0/24", "fd00::/64"), cidr("10.0.0.0/24"), nil},
		{"service cidr changes", cidr("10.1.0.0/24"), cidr("10.0.0.0/24"),
			[]string{`spec.cidrs[0]: Invalid value: "10.1.0.0/24": field is immutable`}},
		{"service cidr loses a family", cidr("10.0.0.0/24"), cidr("10.0.0.0/24", "fd00::/64"),
			[]string{`spec.cidrs: Invalid value: ["10.0.0.0/24"]: field is immutable`}},
		{"slice address type fixed", slice(discoveryv1.AddressTypeIPv6), slice(discoveryv1.AddressTypeIPv4),
			[]string{`addressType: Invalid value: null: field is immutable`}},
		{"unknown new address type", slice("Foo"), slice(discoveryv1.AddressTypeIPv4),
			[]string{
				`addressType: Unsupported value: "Foo": supported values: "FQDN", "IPv4", "IPv6"`,
				`addressType: Invalid value: null: field is immutable`,
			}},
		{"ingress class controller fixed", class("example.com/b"), class("example.com/a"),
			[]string{`spec.controller: Invalid value: "example.com/b": field is immutable`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { expectErrors(t, Update(tt.obj, tt.old), tt.want) })
	}
}

func TestNetworkingStatusUpdate(t *testing.T) {
	in := func(ip string) *networkingv1.Ingress {
		return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "i", Namespace: "ns", ResourceVersion: "1"},
			Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: ip}}}}}
	}
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns", ResourceVersion: "1"},
		Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: -1}}
	expectErrors(t, StatusUpdate(in("010.0.0.1"), in("192.0.2.1")),
		[]string{`status.loadBalancer.ingress[0].ip: Invalid value: "010.0.0.1": must not have leading 0s`})
	// An address already stored stays accepted.
	expectErrors(t, StatusUpdate(in("010.0.0.1"), in("010.0.0.1")), nil)
	expectErrors(t, StatusUpdate(pdb, pdb.DeepCopy()),
		[]string{`status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0`})
}

func TestNetworkingWarnings(t *testing.T) {
	np := &networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{Egress: []networkingv1.NetworkPolicyEgressRule{{
		To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "2001:db8:0::/64"}}}}}}}
	if diff := cmpStrings(Warnings(np, nil), []string{
		`spec.egress[0].to[0].ipBlock.cidr: IPv6 CIDR value "2001:db8:0::/64" should be in RFC 5952 canonical format ("2001:db8::/64")`,
	}); diff != "" {
		t.Errorf("network policy warnings (-got +want):\n%s", diff)
	}
	in := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"kubernetes.io/ingress.class": "x"}}}
	if diff := cmpStrings(Warnings(in, nil), []string{
		`annotation "kubernetes.io/ingress.class" is deprecated, please use 'spec.ingressClassName' instead`,
	}); diff != "" {
		t.Errorf("ingress warnings (-got +want):\n%s", diff)
	}
	if w := Warnings(in, in); len(w) != 0 {
		t.Errorf("ingress update warnings: %q", w)
	}
	fqdn := &discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeFQDN, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"a.example.com"}}}}
	if diff := cmpStrings(Warnings(fqdn, nil), []string{"spec.addressType: FQDN endpoints are deprecated"}); diff != "" {
		t.Errorf("slice warnings (-got +want):\n%s", diff)
	}
}

func cmpStrings(got, want []string) string { return cmp.Diff(got, want) }
