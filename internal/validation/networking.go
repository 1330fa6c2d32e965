package validation

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// kube-apiserver validates these kinds in two passes: its hand-written
// rules first, then the declarative rules of the API types (required
// fields, immutable references), whose errors follow and carry no
// detail. Each validator here keeps the two lists apart in that order.

const (
	ingressClassAnnotation       = "kubernetes.io/ingress.class"
	maxIngressClassControllerLen = 250
)

var (
	supportedPathTypes = []string{
		string(networkingv1.PathTypeExact), string(networkingv1.PathTypeImplementationSpecific), string(networkingv1.PathTypePrefix),
	}
	// Exact and Prefix paths are compared segment by segment; these
	// would make the comparison ambiguous.
	forbiddenPathSequences = []string{"//", "/./", "/../", "%2f", "%2F"}
	forbiddenPathSuffixes  = []string{"/..", "/."}

	supportedParameterScopes  = []string{networkingv1.IngressClassParametersReferenceScopeCluster, networkingv1.IngressClassParametersReferenceScopeNamespace}
	supportedPolicyTypes      = []string{string(networkingv1.PolicyTypeIngress), string(networkingv1.PolicyTypeEgress)}
	supportedPolicyProtocols  = []string{"TCP", "UDP", "SCTP"}
	supportedEndpointProtocol = []string{"SCTP", "TCP", "UDP"}
)

// Strict IP and CIDR parsing (no leading zeros, no bits past the prefix)
// is on in kube-apiserver 1.37 for every field that checks addresses.
const strictIPs = true

// ingressOptions are the leniencies an update grants to what a stored
// ingress already holds.
type ingressOptions struct {
	invalidSecretNames   bool
	invalidWildcardRules bool
}

func validateIngress(in *networkingv1.Ingress) field.ErrorList {
	errs := validateIngressCommon(in, ingressOptions{})
	if v, ok := in.Annotations[ingressClassAnnotation]; ok && in.Spec.IngressClassName != nil && v != *in.Spec.IngressClassName {
		errs = append(errs, field.Invalid(field.NewPath("annotations").Child(ingressClassAnnotation), v, "must match `ingressClassName` when both are specified"))
	}
	return errs
}

func validateIngressUpdate(in, old *networkingv1.Ingress) field.ErrorList {
	opts := ingressOptions{}
	for _, tls := range old.Spec.TLS {
		if len(tlsSecretNameProblems(tls.SecretName)) > 0 {
			opts.invalidSecretNames = true
		}
	}
	for _, r := range old.Spec.Rules {
		if strings.Contains(r.Host, "*") && len(validateIngressRuleValue(&r.IngressRuleValue, nil, ingressOptions{})) > 0 {
			opts.invalidWildcardRules = true
		}
	}
	errs := validateMetaUpdate(&in.ObjectMeta, &old.ObjectMeta)
	return append(errs, validateIngressCommon(in, opts)...)
}

func validateIngressCommon(in *networkingv1.Ingress, opts ingressOptions) field.ErrorList {
	errs := validateMeta(&in.ObjectMeta, true, nameIsDNSSubdomain)
	sp := field.NewPath("spec")
	spec := &in.Spec
	if len(spec.Rules) == 0 && spec.DefaultBackend == nil {
		errs = append(errs, field.Invalid(sp, spec.Rules, "either `defaultBackend` or `rules` must be specified"))
	}
	if spec.DefaultBackend != nil {
		errs = append(errs, validateIngressBackend(spec.DefaultBackend, sp.Child("defaultBackend"))...)
	}
	for i := range spec.Rules {
		errs = append(errs, validateIngressRule(&spec.Rules[i], sp.Child("rules").Index(i), opts)...)
	}
	for i, tls := range spec.TLS {
		tp := sp.Child("tls").Index(i)
		for j, host := range tls.Hosts {
			check := utilvalidation.IsDNS1123Subdomain
			if strings.Contains(host, "*") {
				check = utilvalidation.IsWildcardDNS1123Subdomain
			}
			for _, msg := range check(host) {
				errs = append(errs, field.Invalid(tp.Child("hosts").Index(j), host, msg))
			}
		}
		if !opts.invalidSecretNames {
			for _, msg := range tlsSecretNameProblems(tls.SecretName) {
				errs = append(errs, field.Invalid(tp.Child("secretName"), tls.SecretName, msg))
			}
		}
	}
	if c := spec.IngressClassName; c != nil {
		for _, msg := range nameIsDNSSubdomain(*c, false) {
			errs = append(errs, field.Invalid(sp.Child("ingressClassName"), *c, msg))
		}
	}
	return errs
}

func tlsSecretNameProblems(name string) []string {
	if name == "" {
		return nil
	}
	return nameIsDNSSubdomain(name, false)
}

func validateIngressRule(r *networkingv1.IngressRule, p *field.Path, opts ingressOptions) field.ErrorList {
	var errs field.ErrorList
	wildcard := false
	if r.Host != "" {
		hp := p.Child("host")
		if netutils.ParseIPSloppy(r.Host) != nil {
			errs = append(errs, field.Invalid(hp, r.Host, "must be a DNS name, not an IP address"))
		}
		check := utilvalidation.IsDNS1123Subdomain
		if strings.Contains(r.Host, "*") {
			check, wildcard = utilvalidation.IsWildcardDNS1123Subdomain, true
		}
		for _, msg := range check(r.Host) {
			errs = append(errs, field.Invalid(hp, r.Host, msg))
		}
	}
	if !wildcard || !opts.invalidWildcardRules {
		errs = append(errs, validateIngressRuleValue(&r.IngressRuleValue, p, opts)...)
	}
	return errs
}

func validateIngressRuleValue(v *networkingv1.IngressRuleValue, p *field.Path, _ ingressOptions) field.ErrorList {
	if v.HTTP == nil {
		return nil
	}
	var errs field.ErrorList
	pp := p.Child("http", "paths")
	if len(v.HTTP.Paths) == 0 {
		errs = append(errs, field.Required(pp, ""))
	}
	for i := range v.HTTP.Paths {
		errs = append(errs, validateIngressPath(&v.HTTP.Paths[i], pp.Index(i))...)
	}
	return errs
}

func validateIngressPath(path *networkingv1.HTTPIngressPath, p *field.Path) field.ErrorList {
	if path.PathType == nil {
		return field.ErrorList{field.Required(p.Child("pathType"), "pathType must be specified")}
	}
	var errs field.ErrorList
	vp := p.Child("path")
	switch *path.PathType {
	case networkingv1.PathTypeExact, networkingv1.PathTypePrefix:
		if !strings.HasPrefix(path.Path, "/") {
			errs = append(errs, field.Invalid(vp, path.Path, "must be an absolute path"))
		}
		for _, seq := range forbiddenPathSequences {
			if strings.Contains(path.Path, seq) {
				errs = append(errs, field.Invalid(vp, path.Path, fmt.Sprintf("must not contain '%s'", seq)))
			}
		}
		for _, suffix := range forbiddenPathSuffixes {
			if strings.HasSuffix(path.Path, suffix) {
				errs = append(errs, field.Invalid(vp, path.Path, fmt.Sprintf("cannot end with '%s'", suffix)))
			}
		}
	case networkingv1.PathTypeImplementationSpecific:
		if path.Path != "" && !strings.HasPrefix(path.Path, "/") {
			errs = append(errs, field.Invalid(vp, path.Path, "must be an absolute path"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("pathType"), *path.PathType, supportedPathTypes))
	}
	return append(errs, validateIngressBackend(&path.Backend, p.Child("backend"))...)
}

func validateIngressBackend(b *networkingv1.IngressBackend, p *field.Path) field.ErrorList {
	switch {
	case b.Resource != nil && b.Service != nil:
		return field.ErrorList{field.Invalid(p, "", "cannot set both resource and service backends")}
	case b.Resource != nil:
		return validateLocalObjectReference(b.Resource.APIGroup, b.Resource.Kind, b.Resource.Name, p.Child("resource"))
	case b.Service == nil:
		return field.ErrorList{field.Invalid(p, "", "resource or service backend is required")}
	}
	var errs field.ErrorList
	svc := b.Service
	sp := p.Child("service")
	if svc.Name == "" {
		errs = append(errs, field.Required(sp.Child("name"), ""))
	} else {
		// Service names are DNS labels since RelaxedServiceNameValidation
		// went GA.
		for _, msg := range nameIsDNSLabel(svc.Name, false) {
			errs = append(errs, field.Invalid(sp.Child("name"), svc.Name, msg))
		}
	}
	byName, byNumber := svc.Port.Name != "", svc.Port.Number != 0
	switch {
	case byName && byNumber:
		errs = append(errs, field.Invalid(p, "", "cannot set both port name & port number"))
	case byName:
		for _, msg := range utilvalidation.IsValidPortName(svc.Port.Name) {
			errs = append(errs, field.Invalid(sp.Child("port", "name"), svc.Port.Name, msg))
		}
	case byNumber:
		for _, msg := range utilvalidation.IsValidPortNum(int(svc.Port.Number)) {
			errs = append(errs, field.Invalid(sp.Child("port", "number"), svc.Port.Number, msg))
		}
	default:
		errs = append(errs, field.Required(p, "port name or number is required"))
	}
	return errs
}

// validateLocalObjectReference checks an ingress's resource backend.
func validateLocalObjectReference(group *string, kind, name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if group != nil {
		errs = append(errs, dns1123Subdomain(*group, p.Child("apiGroup"))...)
	}
	errs = append(errs, requiredPathSegment(kind, p.Child("kind"))...)
	return append(errs, requiredPathSegment(name, p.Child("name"))...)
}

func requiredPathSegment(v string, p *field.Path) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	return pathSegment(v, p)
}

func pathSegment(v string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range content.IsPathSegmentName(v) {
		errs = append(errs, field.Invalid(p, v, msg))
	}
	return errs
}

// validateIngressStatusUpdate checks the load balancer addresses; an
// address the stored status already has keeps being accepted.
func validateIngressStatusUpdate(in, old *networkingv1.Ingress) field.ErrorList {
	errs := validateMetaUpdate(&in.ObjectMeta, &old.ObjectMeta)
	var oldIPs []string
	for _, lb := range old.Status.LoadBalancer.Ingress {
		if lb.IP != "" {
			oldIPs = append(oldIPs, lb.IP)
		}
	}
	lp := field.NewPath("status", "loadBalancer", "ingress")
	for i, lb := range in.Status.LoadBalancer.Ingress {
		ip := lp.Index(i)
		if lb.IP != "" {
			errs = append(errs, utilvalidation.IsValidIPForLegacyField(ip.Child("ip"), lb.IP, strictIPs, oldIPs)...)
		}
		if lb.Hostname != "" {
			errs = append(errs, dns1123Subdomain(lb.Hostname, ip.Child("hostname"))...)
			if netutils.ParseIPSloppy(lb.Hostname) != nil {
				errs = append(errs, field.Invalid(ip.Child("hostname"), lb.Hostname, "must be a DNS name, not an IP address"))
			}
		}
	}
	return errs
}

func validateIngressClass(c *networkingv1.IngressClass) field.ErrorList {
	errs := validateMeta(&c.ObjectMeta, false, nameIsDNSSubdomain)
	cp := field.NewPath("spec", "controller")
	if len(c.Spec.Controller) > maxIngressClassControllerLen {
		errs = append(errs, field.TooLong(cp, "", maxIngressClassControllerLen))
	}
	errs = append(errs, utilvalidation.IsDomainPrefixedPath(cp, c.Spec.Controller)...)
	var declarative field.ErrorList
	if params := c.Spec.Parameters; params != nil {
		pp := field.NewPath("spec", "parameters")
		if params.APIGroup != nil {
			errs = append(errs, dns1123Subdomain(*params.APIGroup, pp.Child("apiGroup"))...)
		}
		for _, f := range []struct{ name, value string }{{"kind", params.Kind}, {"name", params.Name}} {
			if f.value == "" {
				declarative = append(declarative, field.Required(pp.Child(f.name), ""))
			} else {
				errs = append(errs, pathSegment(f.value, pp.Child(f.name))...)
			}
		}
		errs = append(errs, validateParametersScope(params, pp)...)
	}
	return append(errs, declarative...)
}

func validateParametersScope(params *networkingv1.IngressClassParametersReference, p *field.Path) field.ErrorList {
	if params.Scope == nil {
		return field.ErrorList{field.Required(p.Child("scope"), "")}
	}
	switch *params.Scope {
	case networkingv1.IngressClassParametersReferenceScopeNamespace:
		if params.Namespace == nil {
			return field.ErrorList{field.Required(p.Child("namespace"), "`parameters.scope` is set to 'Namespace'")}
		}
		var errs field.ErrorList
		for _, msg := range nameIsDNSLabel(*params.Namespace, false) {
			errs = append(errs, field.Invalid(p.Child("namespace"), *params.Namespace, msg))
		}
		return errs
	case networkingv1.IngressClassParametersReferenceScopeCluster:
		if params.Namespace != nil {
			return field.ErrorList{field.Forbidden(p.Child("namespace"), "`parameters.scope` is set to 'Cluster'")}
		}
		return nil
	}
	return field.ErrorList{field.NotSupported(p.Child("scope"), *params.Scope, supportedParameterScopes)}
}

// An IngressClass's controller is fixed: ingresses already handled by it
// would silently move to another.
func validateIngressClassUpdate(c, old *networkingv1.IngressClass) field.ErrorList {
	errs := validateMetaUpdate(&c.ObjectMeta, &old.ObjectMeta)
	errs = append(errs, immutable(c.Spec.Controller, old.Spec.Controller, field.NewPath("spec", "controller"))...)
	return append(errs, validateIngressClass(c)...)
}

// networkPolicyOptions are the leniencies an update grants to what a
// stored policy already holds.
type networkPolicyOptions struct {
	invalidLabelValues bool
	oldCIDRs           []string
}

func validateNetworkPolicy(np *networkingv1.NetworkPolicy) field.ErrorList {
	errs := validateMeta(&np.ObjectMeta, true, nameIsDNSSubdomain)
	return append(errs, validateNetworkPolicySpec(&np.Spec, networkPolicyOptions{})...)
}

func validateNetworkPolicyUpdate(np, old *networkingv1.NetworkPolicy) field.ErrorList {
	opts := networkPolicyOptions{invalidLabelValues: selectorHasInvalidLabelValue(&old.Spec.PodSelector)}
	for _, peers := range networkPolicyPeers(&old.Spec) {
		for _, peer := range peers {
			if peer.IPBlock != nil {
				opts.oldCIDRs = append(opts.oldCIDRs, peer.IPBlock.CIDR)
				opts.oldCIDRs = append(opts.oldCIDRs, peer.IPBlock.Except...)
			}
		}
	}
	errs := validateMetaUpdate(&np.ObjectMeta, &old.ObjectMeta)
	return append(errs, validateNetworkPolicySpec(&np.Spec, opts)...)
}

// networkPolicyPeers lists the peers of every rule, ingress rules first.
func networkPolicyPeers(spec *networkingv1.NetworkPolicySpec) [][]networkingv1.NetworkPolicyPeer {
	return append(ingressPeers(spec), egressPeers(spec)...)
}

func validateNetworkPolicySpec(spec *networkingv1.NetworkPolicySpec, opts networkPolicyOptions) field.ErrorList {
	sp := field.NewPath("spec")
	errs := validateLabelSelector(&spec.PodSelector, opts.invalidLabelValues, sp.Child("podSelector"))
	var declarative field.ErrorList
	rules := func(name, peersName string, n int, rule func(int) ([]networkingv1.NetworkPolicyPort, []networkingv1.NetworkPolicyPeer)) {
		for i := range n {
			rp := sp.Child(name).Index(i)
			ports, peers := rule(i)
			for j := range ports {
				errs = append(errs, validateNetworkPolicyPort(&ports[j], rp.Child("ports").Index(j))...)
			}
			for j := range peers {
				e, d := validateNetworkPolicyPeer(&peers[j], opts, rp.Child(peersName).Index(j))
				errs = append(errs, e...)
				declarative = append(declarative, d...)
			}
		}
	}
	rules("ingress", "from", len(spec.Ingress), func(i int) ([]networkingv1.NetworkPolicyPort, []networkingv1.NetworkPolicyPeer) {
		return spec.Ingress[i].Ports, spec.Ingress[i].From
	})
	rules("egress", "to", len(spec.Egress), func(i int) ([]networkingv1.NetworkPolicyPort, []networkingv1.NetworkPolicyPeer) {
		return spec.Egress[i].Ports, spec.Egress[i].To
	})
	tp := sp.Child("policyTypes")
	if len(spec.PolicyTypes) > len(supportedPolicyTypes) {
		errs = append(errs, field.Invalid(tp, &spec.PolicyTypes, "may not specify more than two policyTypes"))
	} else {
		for i, t := range spec.PolicyTypes {
			if !contains(supportedPolicyTypes, string(t)) {
				errs = append(errs, field.NotSupported(tp.Index(i), t, supportedPolicyTypes))
			}
		}
	}
	return append(errs, declarative...)
}

func validateNetworkPolicyPort(port *networkingv1.NetworkPolicyPort, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if port.Protocol != nil && !contains(supportedPolicyProtocols, string(*port.Protocol)) {
		errs = append(errs, field.NotSupported(p.Child("protocol"), *port.Protocol, supportedPolicyProtocols))
	}
	ep := p.Child("endPort")
	switch {
	case port.Port == nil:
		if port.EndPort != nil {
			errs = append(errs, field.Invalid(ep, *port.EndPort, "may not be specified when `port` is not specified"))
		}
	case port.Port.Type == intstr.Int:
		for _, msg := range utilvalidation.IsValidPortNum(int(port.Port.IntVal)) {
			errs = append(errs, field.Invalid(p.Child("port"), port.Port.IntVal, msg))
		}
		if port.EndPort != nil {
			if *port.EndPort < port.Port.IntVal {
				errs = append(errs, field.Invalid(ep, *port.EndPort, "must be greater than or equal to `port`"))
			}
			for _, msg := range utilvalidation.IsValidPortNum(int(*port.EndPort)) {
				errs = append(errs, field.Invalid(ep, *port.EndPort, msg))
			}
		}
	default:
		if port.EndPort != nil {
			errs = append(errs, field.Invalid(ep, *port.EndPort, "may not be specified when `port` is non-numeric"))
		}
		for _, msg := range utilvalidation.IsValidPortName(port.Port.StrVal) {
			errs = append(errs, field.Invalid(p.Child("port"), port.Port.StrVal, msg))
		}
	}
	return errs
}

// validateNetworkPolicyPeer returns the hand-written errors and the
// declarative ones (a missing ipBlock.cidr) apart.
func validateNetworkPolicyPeer(peer *networkingv1.NetworkPolicyPeer, opts networkPolicyOptions, p *field.Path) (errs, declarative field.ErrorList) {
	n := 0
	if peer.PodSelector != nil {
		n++
		errs = append(errs, validateLabelSelector(peer.PodSelector, opts.invalidLabelValues, p.Child("podSelector"))...)
	}
	if peer.NamespaceSelector != nil {
		n++
		errs = append(errs, validateLabelSelector(peer.NamespaceSelector, opts.invalidLabelValues, p.Child("namespaceSelector"))...)
	}
	if b := peer.IPBlock; b != nil {
		n++
		bp := p.Child("ipBlock")
		if b.CIDR == "" {
			declarative = append(declarative, field.Required(bp.Child("cidr"), ""))
		} else {
			errs = append(errs, validateIPBlock(b, opts, bp)...)
		}
	}
	switch {
	case n == 0:
		errs = append(errs, field.Required(p, "must specify a peer"))
	case n > 1 && peer.IPBlock != nil:
		errs = append(errs, field.Forbidden(p, "may not specify both ipBlock and another peer"))
	}
	return errs, declarative
}

// validateIPBlock checks a CIDR and its exceptions, each a strict subset.
// CIDRs the stored policy already holds are not checked again.
func validateIPBlock(b *networkingv1.IPBlock, opts networkPolicyOptions, p *field.Path) field.ErrorList {
	errs := utilvalidation.IsValidCIDRForLegacyField(p.Child("cidr"), b.CIDR, strictIPs, opts.oldCIDRs)
	_, cidr, err := netutils.ParseCIDRSloppy(b.CIDR)
	if err != nil {
		return errs
	}
	cidrBits, _ := cidr.Mask.Size()
	for i, s := range b.Except {
		xp := p.Child("except").Index(i)
		errs = append(errs, utilvalidation.IsValidCIDRForLegacyField(xp, s, strictIPs, opts.oldCIDRs)...)
		_, except, err := netutils.ParseCIDRSloppy(s)
		if err != nil {
			continue
		}
		if bits, _ := except.Mask.Size(); !cidr.Contains(except.IP) || cidrBits >= bits {
			errs = append(errs, field.Invalid(xp, s, "must be a strict subset of `cidr`"))
		}
	}
	return errs
}

// networkPolicyWarnings reports CIDRs that parse but are not canonical.
func networkPolicyWarnings(np *networkingv1.NetworkPolicy) []string {
	var warnings []string
	sp := field.NewPath("spec")
	for _, kind := range []struct {
		rules, peers string
		all          [][]networkingv1.NetworkPolicyPeer
	}{
		{"ingress", "from", ingressPeers(&np.Spec)},
		{"egress", "to", egressPeers(&np.Spec)},
	} {
		for i, peers := range kind.all {
			for j, peer := range peers {
				if peer.IPBlock == nil {
					continue
				}
				bp := sp.Child(kind.rules).Index(i).Child(kind.peers).Index(j).Child("ipBlock")
				warnings = append(warnings, utilvalidation.GetWarningsForCIDR(bp.Child("cidr"), peer.IPBlock.CIDR)...)
				for k, s := range peer.IPBlock.Except {
					warnings = append(warnings, utilvalidation.GetWarningsForCIDR(bp.Child("except").Index(k), s)...)
				}
			}
		}
	}
	return warnings
}

func ingressPeers(spec *networkingv1.NetworkPolicySpec) [][]networkingv1.NetworkPolicyPeer {
	out := make([][]networkingv1.NetworkPolicyPeer, len(spec.Ingress))
	for i, r := range spec.Ingress {
		out[i] = r.From
	}
	return out
}

func egressPeers(spec *networkingv1.NetworkPolicySpec) [][]networkingv1.NetworkPolicyPeer {
	out := make([][]networkingv1.NetworkPolicyPeer, len(spec.Egress))
	for i, r := range spec.Egress {
		out[i] = r.To
	}
	return out
}

// ingressWarnings names the deprecated class annotation on a new ingress
// that does not say spec.ingressClassName.
func ingressWarnings(in *networkingv1.Ingress) []string {
	if _, ok := in.Annotations[ingressClassAnnotation]; ok && in.Spec.IngressClassName == nil {
		return []string{fmt.Sprintf("annotation %q is deprecated, please use 'spec.ingressClassName' instead", ingressClassAnnotation)}
	}
	return nil
}

// validateIPAddress checks that the name is an IP address in canonical
// form and that the address names what it is allocated to.
func validateIPAddress(ip *networkingv1.IPAddress) field.ErrorList {
	errs, declarative := ipAddressChecks(ip, false)
	return append(errs, declarative...)
}

// ipAddressChecks returns the hand-written errors and the declarative
// ones (the required parts of the parent reference) apart. With inline,
// the declarative rules do not run and the hand-written requirements
// stay in their place.
func ipAddressChecks(ip *networkingv1.IPAddress, inline bool) (errs, declarative field.ErrorList) {
	errs = validateMeta(&ip.ObjectMeta, false, ipAddressName)
	pp := field.NewPath("spec", "parentRef")
	ref := ip.Spec.ParentRef
	if ref == nil {
		if inline {
			return append(errs, field.Required(pp, "")), nil
		}
		return errs, field.ErrorList{field.Required(pp, "")}
	}
	if ref.Group != "" {
		// The core group of Services is "", so a group cannot be required.
		errs = append(errs, dns1123Subdomain(ref.Group, pp.Child("group"))...)
	}
	for _, f := range []struct{ name, value string }{{"resource", ref.Resource}, {"name", ref.Name}} {
		switch {
		case f.value != "":
			errs = append(errs, pathSegment(f.value, pp.Child(f.name))...)
		case inline:
			errs = append(errs, field.Required(pp.Child(f.name), ""))
		default:
			declarative = append(declarative, field.Required(pp.Child(f.name), ""))
		}
	}
	if ref.Namespace != "" {
		errs = append(errs, pathSegment(ref.Namespace, pp.Child("namespace"))...)
	}
	return errs, declarative
}

func ipAddressName(name string, _ bool) []string {
	var msgs []string
	for _, e := range utilvalidation.IsValidIP(&field.Path{}, name) {
		msgs = append(msgs, e.Detail)
	}
	return msgs
}

// An IPAddress's parent is fixed. The declarative rules check only what
// changed: a changed reference is reported without its value, and the
// declarative rules of its parts do not run then (the hand-written ones
// do, in their place).
func validateIPAddressUpdate(ip, old *networkingv1.IPAddress) field.ErrorList {
	cur, prev := ip.Spec.ParentRef, old.Spec.ParentRef
	if cur == prev || (cur != nil && prev != nil && *cur == *prev) {
		errs, _ := ipAddressChecks(ip, true)
		return append(errs, validateMetaUpdate(&ip.ObjectMeta, &old.ObjectMeta)...)
	}
	pp := field.NewPath("spec", "parentRef")
	if cur == nil {
		errs, declarative := ipAddressChecks(ip, false)
		errs = append(errs, validateMetaUpdate(&ip.ObjectMeta, &old.ObjectMeta)...)
		errs = append(errs, declarative...)
		return append(errs, field.Invalid(pp, nil, genericvalidation.FieldImmutableErrorMsg))
	}
	errs, _ := ipAddressChecks(ip, true)
	errs = append(errs, validateMetaUpdate(&ip.ObjectMeta, &old.ObjectMeta)...)
	return append(errs, field.Invalid(pp, nil, genericvalidation.FieldImmutableErrorMsg))
}

func validateServiceCIDR(c *networkingv1.ServiceCIDR) field.ErrorList {
	errs := validateMeta(&c.ObjectMeta, false, nameIsDNSSubdomain)
	return append(errs, validateServiceCIDRSpec(&c.Spec)...)
}

// serviceCIDRSpec is how kube-apiserver's messages show a ServiceCIDR's
// spec: its internal type, with Go field names.
type serviceCIDRSpec struct {
	CIDRs []string
}

func validateServiceCIDRSpec(spec *networkingv1.ServiceCIDRSpec) field.ErrorList {
	cp := field.NewPath("spec", "cidrs")
	switch {
	case len(spec.CIDRs) == 0:
		return field.ErrorList{field.Required(cp, "at least one CIDR required")}
	case len(spec.CIDRs) > 2:
		return field.ErrorList{field.Invalid(cp, serviceCIDRSpec{CIDRs: spec.CIDRs}, "may only hold up to 2 values")}
	}
	var errs field.ErrorList
	for i, c := range spec.CIDRs {
		errs = append(errs, utilvalidation.IsValidCIDR(cp.Index(i), c)...)
	}
	if len(spec.CIDRs) == 2 {
		f0, f1 := netutils.IPFamilyOfCIDRString(spec.CIDRs[0]), netutils.IPFamilyOfCIDRString(spec.CIDRs[1])
		if f0 == f1 && f0 != netutils.IPFamilyUnknown {
			errs = append(errs, field.Invalid(cp, spec.CIDRs, "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"))
		}
	}
	return errs
}

// A ServiceCIDR's ranges are fixed, except that a single-stack one may
// gain a range of the other family.
func validateServiceCIDRUpdate(c, old *networkingv1.ServiceCIDR) field.ErrorList {
	errs := validateMetaUpdate(&c.ObjectMeta, &old.ObjectMeta)
	cp := field.NewPath("spec", "cidrs")
	cur, prev := c.Spec.CIDRs, old.Spec.CIDRs
	switch {
	case len(cur) == len(prev):
		for i := range prev {
			if cur[i] != prev[i] {
				errs = append(errs, field.Invalid(cp.Index(i), cur[i], genericvalidation.FieldImmutableErrorMsg))
			}
		}
	case len(prev) == 1 && len(cur) == 2:
		if cur[0] != prev[0] {
			errs = append(errs, field.Invalid(cp.Index(0), cur[0], genericvalidation.FieldImmutableErrorMsg))
		}
		errs = append(errs, validateServiceCIDRSpec(&c.Spec)...)
	default:
		errs = append(errs, field.Invalid(cp, cur, genericvalidation.FieldImmutableErrorMsg))
	}
	return errs
}

// networkingStatusUpdate validates writes through the status subresource
// of the kinds whose status has rules of its own: an ingress's load
// balancer and a budget's counts. ok is false for other kinds.
func networkingStatusUpdate(obj, old runtime.Object) (errs field.ErrorList, ok bool) {
	switch o := obj.(type) {
	case *networkingv1.Ingress:
		return validateIngressStatusUpdate(o, old.(*networkingv1.Ingress)), true
	case *policyv1.PodDisruptionBudget:
		return validatePodDisruptionBudgetStatusUpdate(o), true
	case *networkingv1.ServiceCIDR:
		// Only metadata is checked: the status is the allocator's.
		return nil, true
	}
	return nil, false
}

// networkingWarnings returns the warnings of a successful create (old
// nil) or update of an ingress, network policy or endpoint slice; ok is
// false for other kinds.
func networkingWarnings(obj, old runtime.Object) (warnings []string, ok bool) {
	switch o := obj.(type) {
	case *networkingv1.Ingress:
		if old == nil {
			return ingressWarnings(o), true
		}
		return nil, true
	case *networkingv1.NetworkPolicy:
		return networkPolicyWarnings(o), true
	case *discoveryv1.EndpointSlice:
		return endpointSliceWarnings(o, old == nil), true
	case *corev1.Service:
		return serviceWarnings(o), true
	}
	return nil, false
}

// serviceWarnings are kube-apiserver's warnings on a Service write (create
// and update alike): deprecated fields and annotations, fields a headless
// or ExternalName Service ignores, and addresses in non-canonical forms.
func serviceWarnings(svc *corev1.Service) []string {
	var warnings []string
	if _, ok := svc.Annotations["service.kubernetes.io/topology-aware-hints"]; ok {
		warnings = append(warnings, "annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead")
	}
	spec := field.NewPath("spec")
	headless := svc.Spec.ClusterIP == corev1.ClusterIPNone
	if svc.Spec.ClusterIP != "" && !headless {
		for i, ip := range svc.Spec.ClusterIPs {
			warnings = append(warnings, utilvalidation.GetWarningsForIP(spec.Child("clusterIPs").Index(i), ip)...)
		}
	}
	if headless {
		if svc.Spec.LoadBalancerIP != "" {
			warnings = append(warnings, "spec.loadBalancerIP is ignored for headless services")
		}
		if len(svc.Spec.ExternalIPs) > 0 {
			warnings = append(warnings, "spec.externalIPs is ignored for headless services")
		}
		if svc.Spec.SessionAffinity != corev1.ServiceAffinityNone {
			warnings = append(warnings, "spec.SessionAffinity is ignored for headless services")
		}
	}
	for i, ip := range svc.Spec.ExternalIPs {
		warnings = append(warnings, utilvalidation.GetWarningsForIP(spec.Child("externalIPs").Index(i), ip)...)
	}
	externalName := svc.Spec.Type == corev1.ServiceTypeExternalName
	if len(svc.Spec.ExternalIPs) > 0 && !headless && !externalName {
		warnings = append(warnings, "spec.externalIPs is deprecated and may no longer be implemented in some clusters")
	}
	if svc.Spec.LoadBalancerIP != "" {
		warnings = append(warnings, utilvalidation.GetWarningsForIP(spec.Child("loadBalancerIP"), svc.Spec.LoadBalancerIP)...)
	}
	for i, cidr := range svc.Spec.LoadBalancerSourceRanges {
		warnings = append(warnings, utilvalidation.GetWarningsForCIDR(spec.Child("loadBalancerSourceRanges").Index(i), cidr)...)
	}
	if externalName && len(svc.Spec.ExternalIPs) > 0 {
		warnings = append(warnings, `spec.externalIPs is ignored when spec.type is "ExternalName"`)
	}
	if !externalName && svc.Spec.ExternalName != "" {
		warnings = append(warnings, `spec.externalName is ignored when spec.type is not "ExternalName"`)
	}
	if td := svc.Spec.TrafficDistribution; td != nil && *td == corev1.ServiceTrafficDistributionPreferClose {
		warnings = append(warnings, `spec.trafficDistribution: "PreferClose" is deprecated; use "PreferSameZone"`)
	}
	return warnings
}
