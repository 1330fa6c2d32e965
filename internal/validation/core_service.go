package validation

import (
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	supportedServiceTypes    = []string{"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}
	supportedSessionAffinity = []string{"ClientIP", "None"}
)

// servicePortKey mirrors the reference's internal ServicePort, whose JSON
// form its duplicate-port message shows.
type servicePortKey struct {
	Name        string
	Protocol    string
	AppProtocol *string
	Port        int32
	TargetPort  intstr.IntOrString
	NodePort    int32
}

func validateService(s *corev1.Service) field.ErrorList {
	errs := validateMeta(&s.ObjectMeta, true, nameIsDNS1035Label)
	sp := field.NewPath("spec")
	headless := s.Spec.ClusterIP == corev1.ClusterIPNone
	if len(s.Spec.Ports) == 0 && !headless && s.Spec.Type != corev1.ServiceTypeExternalName {
		errs = append(errs, field.Required(sp.Child("ports"), ""))
	}
	switch s.Spec.Type {
	case corev1.ServiceTypeLoadBalancer:
		for i, port := range s.Spec.Ports {
			// Clouds that over-open firewalls would expose the kubelet.
			if port.Port == 10250 {
				errs = append(errs, field.Invalid(sp.Child("ports").Index(i), port.Port, "may not expose port 10250 externally since it is used by kubelet"))
			}
		}
		if headless {
			errs = append(errs, field.Invalid(sp.Child("clusterIPs").Index(0), s.Spec.ClusterIP, "may not be set to 'None' for LoadBalancer services"))
		}
	case corev1.ServiceTypeNodePort:
		if headless {
			errs = append(errs, field.Invalid(sp.Child("clusterIPs").Index(0), s.Spec.ClusterIP, "may not be set to 'None' for NodePort services"))
		}
	case corev1.ServiceTypeExternalName:
		const msg = "may not be set for ExternalName services"
		if s.Spec.ClusterIP != "" || len(s.Spec.ClusterIPs) > 0 {
			errs = append(errs, field.Forbidden(sp.Child("clusterIPs"), msg))
		}
		if len(s.Spec.IPFamilies) > 0 {
			errs = append(errs, field.Forbidden(sp.Child("ipFamilies"), msg))
		}
		if s.Spec.IPFamilyPolicy != nil {
			errs = append(errs, field.Forbidden(sp.Child("ipFamilyPolicy"), msg))
		}
		// A trailing dot marks the name as fully qualified.
		if s.Spec.ExternalName == "" {
			errs = append(errs, field.Required(sp.Child("externalName"), ""))
		} else {
			cname := strings.TrimSuffix(s.Spec.ExternalName, ".")
			errs = append(errs, dns1123Subdomain(cname, sp.Child("externalName"))...)
		}
	}
	if pol := s.Spec.IPFamilyPolicy; pol != nil {
		switch *pol {
		case corev1.IPFamilyPolicySingleStack, corev1.IPFamilyPolicyPreferDualStack, corev1.IPFamilyPolicyRequireDualStack:
		default:
			errs = append(errs, field.NotSupported(sp.Child("ipFamilyPolicy"), *pol, []string{"PreferDualStack", "RequireDualStack", "SingleStack"}))
		}
	}
	external := s.Spec.Type == corev1.ServiceTypeNodePort || s.Spec.Type == corev1.ServiceTypeLoadBalancer
	if s.Spec.ExternalTrafficPolicy != "" && !external {
		errs = append(errs, field.Invalid(sp.Child("externalTrafficPolicy"), s.Spec.ExternalTrafficPolicy, "may only be set for externally-accessible services"))
	}
	names := map[string]bool{}
	for i := range s.Spec.Ports {
		errs = append(errs, validateServicePort(&s.Spec.Ports[i], len(s.Spec.Ports) > 1, names, sp.Child("ports").Index(i))...)
	}
	if s.Spec.Selector != nil {
		errs = append(errs, metav1validation.ValidateLabels(s.Spec.Selector, sp.Child("selector"))...)
	}
	if s.Spec.SessionAffinity == "" {
		errs = append(errs, field.Required(sp.Child("sessionAffinity"), ""))
	} else if !contains(supportedSessionAffinity, string(s.Spec.SessionAffinity)) {
		errs = append(errs, field.NotSupported(sp.Child("sessionAffinity"), s.Spec.SessionAffinity, supportedSessionAffinity))
	}
	if s.Spec.SessionAffinity == corev1.ServiceAffinityNone && s.Spec.SessionAffinityConfig != nil {
		errs = append(errs, field.Forbidden(sp.Child("sessionAffinityConfig"), fmt.Sprintf("must not be set when session affinity is %s", corev1.ServiceAffinityNone)))
	}
	if s.Spec.ClusterIP != "" && !headless {
		errs = append(errs, utilvalidation.IsValidIPForLegacyField(sp.Child("clusterIPs").Index(0), s.Spec.ClusterIP, strictIPs, nil)...)
	}
	for i, ip := range s.Spec.ExternalIPs {
		errs = append(errs, utilvalidation.IsValidIPForLegacyField(sp.Child("externalIPs").Index(i), ip, strictIPs, nil)...)
	}
	if s.Spec.Type == "" {
		errs = append(errs, field.Required(sp.Child("type"), ""))
	} else if !contains(supportedServiceTypes, string(s.Spec.Type)) {
		errs = append(errs, field.NotSupported(sp.Child("type"), s.Spec.Type, supportedServiceTypes))
	}
	if s.Spec.Type == corev1.ServiceTypeClusterIP {
		for i, port := range s.Spec.Ports {
			if port.NodePort != 0 {
				errs = append(errs, field.Forbidden(sp.Child("ports").Index(i).Child("nodePort"), "may not be used when `type` is 'ClusterIP'"))
			}
		}
	}
	// Ports and node ports must be unique per protocol.
	nodePorts := map[string]bool{}
	ports := map[string]bool{}
	for i, port := range s.Spec.Ports {
		pp := sp.Child("ports").Index(i)
		if port.NodePort != 0 {
			k := fmt.Sprintf("%s/%d", port.Protocol, port.NodePort)
			if nodePorts[k] {
				errs = append(errs, field.Duplicate(pp.Child("nodePort"), port.NodePort))
			}
			nodePorts[k] = true
		}
		k := fmt.Sprintf("%s/%d", port.Protocol, port.Port)
		if ports[k] {
			errs = append(errs, field.Duplicate(pp, servicePortKey{Protocol: string(port.Protocol), Port: port.Port}))
		}
		ports[k] = true
	}
	errs = append(errs, validateSourceRanges(s)...)
	if s.Spec.AllocateLoadBalancerNodePorts != nil && s.Spec.Type != corev1.ServiceTypeLoadBalancer {
		errs = append(errs, field.Forbidden(sp.Child("allocateLoadBalancerNodePorts"), "may only be used when `type` is 'LoadBalancer'"))
	}
	return errs
}

// loadBalancerSourceRanges is the annotation older clients set instead of
// spec.loadBalancerSourceRanges.
const loadBalancerSourceRanges = "service.beta.kubernetes.io/load-balancer-source-ranges"

// validateSourceRanges checks the load balancer source ranges, given in
// the field or else in the legacy annotation: only for LoadBalancer
// Services, each a CIDR (padding spaces allowed, a historical accident).
// The field path is kube-apiserver's, capitalised as it has it.
func validateSourceRanges(s *corev1.Service) field.ErrorList {
	var errs field.ErrorList
	lb := s.Spec.Type == corev1.ServiceTypeLoadBalancer
	if len(s.Spec.LoadBalancerSourceRanges) > 0 {
		p := field.NewPath("spec", "LoadBalancerSourceRanges")
		if !lb {
			errs = append(errs, field.Forbidden(p, "may only be used when `type` is 'LoadBalancer'"))
		}
		for i, v := range s.Spec.LoadBalancerSourceRanges {
			errs = append(errs, utilvalidation.IsValidCIDRForLegacyField(p.Index(i), strings.TrimSpace(v), strictIPs, nil)...)
		}
		return errs
	}
	v, ok := s.Annotations[loadBalancerSourceRanges]
	if !ok {
		return nil
	}
	p := field.NewPath("metadata", "annotations").Key(loadBalancerSourceRanges)
	if !lb {
		errs = append(errs, field.Forbidden(p, "may only be used when `type` is 'LoadBalancer'"))
	}
	if v = strings.TrimSpace(v); v != "" {
		for _, c := range strings.Split(v, ",") {
			errs = append(errs, utilvalidation.IsValidCIDRForLegacyField(p, strings.TrimSpace(c), strictIPs, nil)...)
		}
	}
	return errs
}

func validateServicePort(sp *corev1.ServicePort, requireName bool, names map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if requireName && sp.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else if sp.Name != "" {
		errs = append(errs, dns1123Label(sp.Name, p.Child("name"))...)
		if names[sp.Name] {
			errs = append(errs, field.Duplicate(p.Child("name"), sp.Name))
		}
		names[sp.Name] = true
	}
	for _, msg := range utilvalidation.IsValidPortNum(int(sp.Port)) {
		errs = append(errs, field.Invalid(p.Child("port"), sp.Port, msg))
	}
	errs = append(errs, validateProtocol(sp.Protocol, p.Child("protocol"))...)
	return append(errs, validatePortNumOrName(sp.TargetPort, p.Child("targetPort"))...)
}

func validatePortNumOrName(port intstr.IntOrString, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch port.Type {
	case intstr.Int:
		for _, msg := range utilvalidation.IsValidPortNum(port.IntValue()) {
			errs = append(errs, field.Invalid(p, port.IntValue(), msg))
		}
	case intstr.String:
		for _, msg := range utilvalidation.IsValidPortName(port.StrVal) {
			errs = append(errs, field.Invalid(p, port.StrVal, msg))
		}
	default:
		errs = append(errs, field.InternalError(p, fmt.Errorf("unknown type: %v", port.Type)))
	}
	return errs
}

func validateServiceUpdate(s, old *corev1.Service) field.ErrorList {
	errs := validateMetaUpdate(&s.ObjectMeta, &old.ObjectMeta)
	// Once allocated, cluster IPs stay for the life of the service.
	if s.Spec.Type != corev1.ServiceTypeExternalName && old.Spec.Type != corev1.ServiceTypeExternalName &&
		!(old.Spec.ClusterIP == corev1.ClusterIPNone && s.Spec.ClusterIP == corev1.ClusterIPNone) {
		ips := field.NewPath("spec", "clusterIPs")
		cur, was := s.Spec.ClusterIPs, old.Spec.ClusterIPs
		switch {
		case len(was) > 0 && len(cur) == 0:
			errs = append(errs, field.Invalid(ips.Index(0), cur, "primary clusterIP can not be unset"))
		case len(was) > 0 && cur[0] != was[0]:
			errs = append(errs, field.Invalid(ips.Index(0), cur, "may not change once set"))
		case len(was) == 2 && len(cur) == 2 && cur[1] != was[1]:
			errs = append(errs, field.Invalid(ips.Index(1), cur, "may not change once set"))
		}
	}
	return append(errs, validateService(s)...)
}

func validateEndpoints(e *corev1.Endpoints) field.ErrorList {
	errs := validateMeta(&e.ObjectMeta, true, nameIsDNSSubdomain)
	for i, ss := range e.Subsets {
		sp := field.NewPath("subsets").Index(i)
		if len(ss.Addresses) == 0 && len(ss.NotReadyAddresses) == 0 {
			errs = append(errs, field.Required(sp, "must specify `addresses` or `notReadyAddresses`"))
		}
		for j, a := range ss.Addresses {
			errs = append(errs, validateEndpointAddress(&a, sp.Child("addresses").Index(j))...)
		}
		for j, a := range ss.NotReadyAddresses {
			errs = append(errs, validateEndpointAddress(&a, sp.Child("notReadyAddresses").Index(j))...)
		}
		for j, port := range ss.Ports {
			pp := sp.Child("ports").Index(j)
			if len(ss.Ports) > 1 && port.Name == "" {
				errs = append(errs, field.Required(pp.Child("name"), ""))
			} else if port.Name != "" {
				errs = append(errs, dns1123Label(port.Name, pp.Child("name"))...)
			}
			for _, msg := range utilvalidation.IsValidPortNum(int(port.Port)) {
				errs = append(errs, field.Invalid(pp.Child("port"), port.Port, msg))
			}
			errs = append(errs, validateProtocol(port.Protocol, pp.Child("protocol"))...)
		}
	}
	return errs
}

func validateEndpointAddress(a *corev1.EndpointAddress, p *field.Path) field.ErrorList {
	errs := utilvalidation.IsValidIPForLegacyField(p.Child("ip"), a.IP, strictIPs, nil)
	errs = append(errs, validateNonSpecialIP(a.IP, p.Child("ip"))...)
	if a.Hostname != "" {
		errs = append(errs, dns1123Label(a.Hostname, p.Child("hostname"))...)
	}
	if a.NodeName != nil {
		for _, msg := range nameIsDNSSubdomain(*a.NodeName, false) {
			errs = append(errs, field.Invalid(p.Child("nodeName"), *a.NodeName, msg))
		}
	}
	return errs
}

// validateNonSpecialIP refuses endpoint addresses that could never reach a
// pod: unparseable, unspecified, loopback and link-local ones.
func validateNonSpecialIP(s string, p *field.Path) field.ErrorList {
	ip, err := netip.ParseAddr(withoutLeadingZeros(s))
	if err != nil {
		return field.ErrorList{field.Invalid(p, s, "must be a valid IP address")}
	}
	switch {
	case ip.IsUnspecified():
		return field.ErrorList{field.Invalid(p, s, fmt.Sprintf("may not be unspecified (%v)", s))}
	case ip.IsLoopback():
		return field.ErrorList{field.Invalid(p, s, "may not be in the loopback range (127.0.0.0/8, ::1/128)")}
	case ip.IsLinkLocalUnicast():
		return field.ErrorList{field.Invalid(p, s, "may not be in the link-local range (169.254.0.0/16, fe80::/10)")}
	case ip.IsLinkLocalMulticast():
		return field.ErrorList{field.Invalid(p, s, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")}
	}
	return nil
}

// withoutLeadingZeros rewrites 010.001.0.1 as 10.1.0.1: such legacy
// addresses are valid in these fields, as kube-apiserver's parser allows.
func withoutLeadingZeros(s string) string {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return s
	}
	for i, p := range parts {
		if t := strings.TrimLeft(p, "0"); t != p {
			if t == "" {
				t = "0"
			}
			parts[i] = t
		}
	}
	return strings.Join(parts, ".")
}
