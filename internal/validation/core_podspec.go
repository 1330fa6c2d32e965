package validation

import (
	"fmt"
	"math"
	"net/netip"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The scheduling, probing and security parts of a pod spec, with
// kube-apiserver's messages: what a user who writes a wrong toleration,
// affinity, probe or security context meets at create time.

func validatePodSpecDetails(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validatePodSecurityContext(spec.SecurityContext, p.Child("securityContext"))...)
	errs = append(errs, validateDNSConfig(spec.DNSPolicy, spec.DNSConfig, p.Child("dnsConfig"))...)
	for i, g := range spec.ReadinessGates {
		errs = append(errs, qualifiedName(string(g.ConditionType), p.Child("readinessGates").Index(i).Child("conditionType"))...)
	}
	errs = append(errs, validateTolerations(spec.Tolerations, p.Child("tolerations"))...)
	errs = append(errs, validateHostAliases(spec.HostAliases, p.Child("hostAliases"))...)
	if spec.PriorityClassName != "" {
		errs = append(errs, dns1123Subdomain(spec.PriorityClassName, p.Child("priorityClassName"))...)
	}
	if spec.OS != nil && spec.OS.Name != corev1.Linux && spec.OS.Name != corev1.Windows {
		errs = append(errs, field.NotSupported(p.Child("os"), spec.OS.Name, []string{"linux", "windows"}))
	}
	errs = append(errs, validateAffinity(spec.Affinity, p.Child("affinity"))...)
	errs = append(errs, validateTopologySpread(spec.TopologySpreadConstraints, p.Child("topologySpreadConstraints"))...)
	errs = append(errs, validateSchedulingGates(spec.SchedulingGates, p.Child("schedulingGates"))...)
	return errs
}

// validateContainerDetails checks a container's probes, lifecycle hooks,
// security context and envFrom.
func validateContainerDetails(c *corev1.Container, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateProbe(c.LivenessProbe, p.Child("livenessProbe"), true)...)
	errs = append(errs, validateProbe(c.ReadinessProbe, p.Child("readinessProbe"), false)...)
	errs = append(errs, validateProbe(c.StartupProbe, p.Child("startupProbe"), true)...)
	if c.Lifecycle != nil {
		errs = append(errs, validateLifecycleHandler(c.Lifecycle.PostStart, p.Child("lifecycle", "postStart"))...)
		errs = append(errs, validateLifecycleHandler(c.Lifecycle.PreStop, p.Child("lifecycle", "preStop"))...)
	}
	errs = append(errs, validateContainerSecurityContext(c.SecurityContext, p.Child("securityContext"))...)
	for i, ef := range c.EnvFrom {
		ip := p.Child("envFrom").Index(i)
		if ef.Prefix != "" {
			for _, msg := range utilvalidation.IsRelaxedEnvVarName(ef.Prefix) {
				errs = append(errs, field.Invalid(ip.Child("prefix"), ef.Prefix, msg))
			}
		}
		switch {
		case ef.ConfigMapRef == nil && ef.SecretRef == nil:
			errs = append(errs, field.Invalid(ip, "", "must specify one of: `configMapRef` or `secretRef`"))
		case ef.ConfigMapRef != nil && ef.SecretRef != nil:
			errs = append(errs, field.Invalid(ip, "", "may not have more than one field specified at a time"))
		case ef.ConfigMapRef != nil:
			errs = append(errs, validateRefName(ef.ConfigMapRef.Name, ip.Child("configMapRef", "name"))...)
		default:
			errs = append(errs, validateRefName(ef.SecretRef.Name, ip.Child("secretRef", "name"))...)
		}
	}
	return errs
}

func validateRefName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	return dns1123Subdomain(name, p)
}

func validateTolerations(tols []corev1.Toleration, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, t := range tols {
		ip := p.Index(i)
		if t.Key != "" {
			errs = append(errs, metav1validation.ValidateLabelName(t.Key, ip.Child("key"))...)
		}
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			errs = append(errs, field.Invalid(ip.Child("operator"), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(ip.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			for _, msg := range utilvalidation.IsValidLabelValue(t.Value) {
				errs = append(errs, field.Invalid(ip.Child("operator"), t.Value, msg))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(ip.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		default:
			errs = append(errs, field.NotSupported(ip.Child("operator"), t.Operator, []string{"Equal", "Exists"}))
		}
		if t.Effect != "" {
			errs = append(errs, validateTaintEffect(t.Effect, ip.Child("effect"))...)
		}
	}
	return errs
}

func validateTaintEffect(e corev1.TaintEffect, p *field.Path) field.ErrorList {
	switch e {
	case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		return nil
	}
	return field.ErrorList{field.NotSupported(p, e, []string{"NoSchedule", "PreferNoSchedule", "NoExecute"})}
}

func validateAffinity(a *corev1.Affinity, p *field.Path) field.ErrorList {
	if a == nil {
		return nil
	}
	var errs field.ErrorList
	if na := a.NodeAffinity; na != nil {
		np := p.Child("nodeAffinity")
		if r := na.RequiredDuringSchedulingIgnoredDuringExecution; r != nil {
			errs = append(errs, validateNodeSelector(r, np.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
		}
		for i, term := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			ip := np.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			errs = append(errs, validateWeight(term.Weight, ip.Child("weight"))...)
			errs = append(errs, validateNodeSelectorTerm(&term.Preference, ip.Child("preference"))...)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, p.Child("podAffinity"))...)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, p.Child("podAntiAffinity"))...)
	}
	return errs
}

func validateWeight(w int32, p *field.Path) field.ErrorList {
	if w < 1 || w > 100 {
		return field.ErrorList{field.Invalid(p, w, "must be in the range 1-100")}
	}
	return nil
}

func validateNodeSelector(ns *corev1.NodeSelector, p *field.Path) field.ErrorList {
	tp := p.Child("nodeSelectorTerms")
	if len(ns.NodeSelectorTerms) == 0 {
		return field.ErrorList{field.Required(tp, "must have at least one node selector term")}
	}
	var errs field.ErrorList
	for i := range ns.NodeSelectorTerms {
		errs = append(errs, validateNodeSelectorTerm(&ns.NodeSelectorTerms[i], tp.Index(i))...)
	}
	return errs
}

func validateNodeSelectorTerm(t *corev1.NodeSelectorTerm, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, r := range t.MatchExpressions {
		ip := p.Child("matchExpressions").Index(i)
		errs = append(errs, validateNodeSelectorOperator(r.Operator, len(r.Values), ip)...)
		errs = append(errs, metav1validation.ValidateLabelName(r.Key, ip.Child("key"))...)
	}
	for i, r := range t.MatchFields {
		ip := p.Child("matchFields").Index(i)
		if r.Key != "metadata.name" {
			errs = append(errs, field.NotSupported(ip.Child("key"), r.Key, []string{"metadata.name"}))
		}
		switch r.Operator {
		case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
			if len(r.Values) != 1 {
				errs = append(errs, field.Required(ip.Child("values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
			}
		default:
			errs = append(errs, field.Invalid(ip.Child("operator"), r.Operator, "not a valid selector operator"))
		}
	}
	return errs
}

func validateNodeSelectorOperator(op corev1.NodeSelectorOperator, values int, p *field.Path) field.ErrorList {
	switch op {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		if values == 0 {
			return field.ErrorList{field.Required(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'")}
		}
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if values > 0 {
			return field.ErrorList{field.Forbidden(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'")}
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if values != 1 {
			return field.ErrorList{field.Required(p.Child("values"), "must be specified single value when `operator` is 'Lt' or 'Gt'")}
		}
	default:
		return field.ErrorList{field.Invalid(p.Child("operator"), op, "not a valid selector operator")}
	}
	return nil
}

func validatePodAffinityTerms(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i := range required {
		errs = append(errs, validatePodAffinityTerm(&required[i], p.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i))...)
	}
	for i := range preferred {
		ip := p.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
		errs = append(errs, validateWeight(preferred[i].Weight, ip.Child("weight"))...)
		errs = append(errs, validatePodAffinityTerm(&preferred[i].PodAffinityTerm, ip.Child("podAffinityTerm"))...)
	}
	return errs
}

func validatePodAffinityTerm(t *corev1.PodAffinityTerm, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if t.LabelSelector != nil {
		errs = append(errs, validateLabelSelector(t.LabelSelector, false, p.Child("labelSelector"))...)
	}
	if t.NamespaceSelector != nil {
		errs = append(errs, validateLabelSelector(t.NamespaceSelector, false, p.Child("namespaceSelector"))...)
	}
	for _, ns := range t.Namespaces {
		errs = append(errs, dns1123Label(ns, p.Child("namespace"))...)
	}
	if t.TopologyKey == "" {
		errs = append(errs, field.Required(p.Child("topologyKey"), "can not be empty"))
	}
	return append(errs, metav1validation.ValidateLabelName(t.TopologyKey, p.Child("topologyKey"))...)
}

func validateTopologySpread(cs []corev1.TopologySpreadConstraint, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[[2]string]bool{}
	for i, c := range cs {
		ip := p.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(ip.Child("maxSkew"), c.MaxSkew, "must be greater than zero"))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(ip.Child("topologyKey"), "can not be empty"))
		} else {
			errs = append(errs, metav1validation.ValidateLabelName(c.TopologyKey, ip.Child("topologyKey"))...)
		}
		switch c.WhenUnsatisfiable {
		case corev1.DoNotSchedule, corev1.ScheduleAnyway:
		default:
			errs = append(errs, field.NotSupported(ip.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, []string{"DoNotSchedule", "ScheduleAnyway"}))
		}
		if c.MinDomains != nil {
			if *c.MinDomains <= 0 {
				errs = append(errs, field.Invalid(ip.Child("minDomains"), *c.MinDomains, "must be greater than 0"))
			} else if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				errs = append(errs, field.Invalid(ip.Child("minDomains"), *c.MinDomains, "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway"))
			}
		}
		key := [2]string{c.TopologyKey, string(c.WhenUnsatisfiable)}
		if seen[key] {
			errs = append(errs, field.Duplicate(ip, fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
		}
		seen[key] = true
		if c.LabelSelector != nil {
			errs = append(errs, validateLabelSelector(c.LabelSelector, false, ip.Child("labelSelector"))...)
		}
	}
	return errs
}

func validateSchedulingGates(gates []corev1.PodSchedulingGate, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, g := range gates {
		errs = append(errs, qualifiedName(g.Name, p.Index(i))...)
		if seen[g.Name] {
			errs = append(errs, field.Duplicate(p.Index(i), g.Name))
		}
		seen[g.Name] = true
	}
	return errs
}

const ipAddressMsg = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"

func validIP(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Zone() == ""
}

func validateHostAliases(aliases []corev1.HostAlias, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, a := range aliases {
		ip := p.Index(i)
		if !validIP(a.IP) {
			errs = append(errs, field.Invalid(ip.Child("ip"), a.IP, ipAddressMsg))
		}
		for j, h := range a.Hostnames {
			errs = append(errs, dns1123Subdomain(h, ip.Child("hostnames").Index(j))...)
		}
	}
	return errs
}

func validateDNSConfig(policy corev1.DNSPolicy, c *corev1.PodDNSConfig, p *field.Path) field.ErrorList {
	if c == nil {
		return nil
	}
	var errs field.ErrorList
	if policy == corev1.DNSNone && len(c.Nameservers) == 0 {
		errs = append(errs, field.Required(p.Child("nameservers"), fmt.Sprintf("must provide at least one DNS nameserver when `dnsPolicy` is %s", corev1.DNSNone)))
	}
	if len(c.Nameservers) > 3 {
		errs = append(errs, field.Invalid(p.Child("nameservers"), c.Nameservers, "must not have more than 3 nameservers"))
	}
	for i, ns := range c.Nameservers {
		if !validIP(ns) {
			errs = append(errs, field.Invalid(p.Child("nameservers").Index(i), ns, ipAddressMsg))
		}
	}
	if len(c.Searches) > 32 {
		errs = append(errs, field.Invalid(p.Child("searches"), c.Searches, "must not have more than 32 search paths"))
	}
	for i, s := range c.Searches {
		if s == "." {
			continue
		}
		errs = append(errs, dns1123Subdomain(strings.TrimSuffix(s, "."), p.Child("searches").Index(i))...)
	}
	for i, o := range c.Options {
		if o.Name == "" {
			errs = append(errs, field.Required(p.Child("options").Index(i), "Option.Name must not be empty"))
		}
	}
	return errs
}

// handlerNames are the handler fields set, in the order kube-apiserver
// counts them; last is the probe's grpc or the hook's sleep.
func handlerNames(exec *corev1.ExecAction, get *corev1.HTTPGetAction, tcp *corev1.TCPSocketAction, last string, lastSet bool) []string {
	var set []string
	for _, h := range []struct {
		name string
		set  bool
	}{{"exec", exec != nil}, {"httpGet", get != nil}, {"tcpSocket", tcp != nil}, {last, lastSet}} {
		if h.set {
			set = append(set, h.name)
		}
	}
	return set
}

func validateProbe(pr *corev1.Probe, p *field.Path, successMustBeOne bool) field.ErrorList {
	if pr == nil {
		return nil
	}
	errs := validateHandlers(handlerNames(pr.Exec, pr.HTTPGet, pr.TCPSocket, "grpc", pr.GRPC != nil), p)
	errs = append(errs, validateHandlerFields(pr.Exec, pr.HTTPGet, pr.TCPSocket, p)...)
	if pr.GRPC != nil {
		for _, msg := range utilvalidation.IsValidPortNum(int(pr.GRPC.Port)) {
			errs = append(errs, field.Invalid(p.Child("grpc", "port"), pr.GRPC.Port, msg))
		}
	}
	errs = append(errs, nonNegative(int64(pr.InitialDelaySeconds), p.Child("initialDelaySeconds"))...)
	errs = append(errs, nonNegative(int64(pr.TimeoutSeconds), p.Child("timeoutSeconds"))...)
	errs = append(errs, nonNegative(int64(pr.PeriodSeconds), p.Child("periodSeconds"))...)
	errs = append(errs, nonNegative(int64(pr.SuccessThreshold), p.Child("successThreshold"))...)
	errs = append(errs, nonNegative(int64(pr.FailureThreshold), p.Child("failureThreshold"))...)
	if successMustBeOne && pr.SuccessThreshold != 1 {
		errs = append(errs, field.Invalid(p.Child("successThreshold"), pr.SuccessThreshold, "must be 1"))
	}
	if g := pr.TerminationGracePeriodSeconds; g != nil && *g <= 0 {
		errs = append(errs, field.Invalid(p.Child("terminationGracePeriodSeconds"), *g, "must be greater than 0"))
	}
	return errs
}

func validateLifecycleHandler(h *corev1.LifecycleHandler, p *field.Path) field.ErrorList {
	if h == nil {
		return nil
	}
	errs := validateHandlers(handlerNames(h.Exec, h.HTTPGet, h.TCPSocket, "sleep", h.Sleep != nil), p)
	return append(errs, validateHandlerFields(h.Exec, h.HTTPGet, h.TCPSocket, p)...)
}

func validateHandlers(set []string, p *field.Path) field.ErrorList {
	if len(set) == 0 {
		return field.ErrorList{field.Required(p, "must specify a handler type")}
	}
	var errs field.ErrorList
	for _, name := range set[1:] {
		errs = append(errs, field.Forbidden(p.Child(name), "may not specify more than 1 handler type"))
	}
	return errs
}

func validateHandlerFields(exec *corev1.ExecAction, get *corev1.HTTPGetAction, tcp *corev1.TCPSocketAction, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if exec != nil && len(exec.Command) == 0 {
		errs = append(errs, field.Required(p.Child("exec", "command"), ""))
	}
	if get != nil {
		errs = append(errs, validatePortNumOrName(get.Port, p.Child("httpGet", "port"))...)
		if get.Scheme != corev1.URISchemeHTTP && get.Scheme != corev1.URISchemeHTTPS {
			errs = append(errs, field.NotSupported(p.Child("httpGet", "scheme"), get.Scheme, []string{"HTTP", "HTTPS"}))
		}
	}
	if tcp != nil {
		errs = append(errs, validatePortNumOrName(tcp.Port, p.Child("tcpSocket", "port"))...)
	}
	return errs
}

// sysctlPattern is kube-apiserver's sysctl name pattern (dots or slashes).
const sysctlPattern = `^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$`

var sysctlRE = regexp.MustCompile(sysctlPattern)

func validateID(v *int64, p *field.Path) field.ErrorList {
	if v == nil || (*v >= 0 && *v <= math.MaxInt32) {
		return nil
	}
	return field.ErrorList{field.Invalid(p, *v, utilvalidation.InclusiveRangeError(0, math.MaxInt32))}
}

func validatePodSecurityContext(sc *corev1.PodSecurityContext, p *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	var errs field.ErrorList
	errs = append(errs, validateID(sc.FSGroup, p.Child("fsGroup"))...)
	errs = append(errs, validateID(sc.RunAsUser, p.Child("runAsUser"))...)
	errs = append(errs, validateID(sc.RunAsGroup, p.Child("runAsGroup"))...)
	for i := range sc.SupplementalGroups {
		errs = append(errs, validateID(&sc.SupplementalGroups[i], p.Child("supplementalGroups").Index(i))...)
	}
	seen := map[string]bool{}
	for i, s := range sc.Sysctls {
		ip := p.Child("sysctls").Index(i)
		switch {
		case s.Name == "":
			errs = append(errs, field.Required(ip.Child("name"), ""))
		case len(s.Name) > 253 || !sysctlRE.MatchString(s.Name):
			errs = append(errs, field.Invalid(ip.Child("name"), s.Name, "must have at most 253 characters and match regex "+sysctlPattern))
		case seen[s.Name]:
			errs = append(errs, field.Duplicate(ip.Child("name"), s.Name))
		}
		seen[s.Name] = true
	}
	if c := sc.FSGroupChangePolicy; c != nil && *c != corev1.FSGroupChangeOnRootMismatch && *c != corev1.FSGroupChangeAlways {
		errs = append(errs, field.NotSupported(p.Child("fsGroupChangePolicy"), *c, []string{"OnRootMismatch", "Always"}))
	}
	return append(errs, validateSeccomp(sc.SeccompProfile, p.Child("seccompProfile"))...)
}

func validateSeccomp(sp *corev1.SeccompProfile, p *field.Path) field.ErrorList {
	if sp == nil {
		return nil
	}
	switch sp.Type {
	case corev1.SeccompProfileTypeLocalhost:
		if sp.LocalhostProfile == nil {
			return field.ErrorList{field.Required(p.Child("localhostProfile"), "must be set when seccomp type is Localhost")}
		}
	case corev1.SeccompProfileTypeRuntimeDefault, corev1.SeccompProfileTypeUnconfined:
		if sp.LocalhostProfile != nil {
			return field.ErrorList{field.Invalid(p.Child("localhostProfile"), sp.LocalhostProfile, "can only be set when seccomp type is Localhost")}
		}
	default:
		return field.ErrorList{field.NotSupported(p.Child("type"), sp.Type, []string{"Localhost", "RuntimeDefault", "Unconfined"})}
	}
	return nil
}

func validateContainerSecurityContext(sc *corev1.SecurityContext, p *field.Path) field.ErrorList {
	if sc == nil {
		return nil
	}
	var errs field.ErrorList
	errs = append(errs, validateID(sc.RunAsUser, p.Child("runAsUser"))...)
	errs = append(errs, validateID(sc.RunAsGroup, p.Child("runAsGroup"))...)
	if pm := sc.ProcMount; pm != nil && *pm != corev1.DefaultProcMount && *pm != corev1.UnmaskedProcMount {
		errs = append(errs, field.NotSupported(p.Child("procMount"), *pm, []string{"Default", "Unmasked"}))
	}
	errs = append(errs, validateSeccomp(sc.SeccompProfile, p.Child("seccompProfile"))...)
	if ape := sc.AllowPrivilegeEscalation; ape != nil && !*ape {
		if sc.Privileged != nil && *sc.Privileged {
			errs = append(errs, field.Invalid(p, internalSecurityContext(sc), "cannot set `allowPrivilegeEscalation` to false and `privileged` to true"))
		}
		if sc.Capabilities != nil && slices.Contains(sc.Capabilities.Add, "CAP_SYS_ADMIN") {
			errs = append(errs, field.Invalid(p, internalSecurityContext(sc), "cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"))
		}
	}
	return errs
}

// internalSecurityContext mirrors the shape kube-apiserver prints when it
// quotes a whole security context in an error: its internal type, whose
// fields carry no JSON names.
func internalSecurityContext(sc *corev1.SecurityContext) any {
	type capabilities struct{ Add, Drop []corev1.Capability }
	type seLinux struct{ User, Role, Type, Level string }
	type windows struct {
		GMSACredentialSpecName, GMSACredentialSpec, RunAsUserName *string
		HostProcess                                               *bool
	}
	type profile struct {
		Type             string
		LocalhostProfile *string
	}
	out := struct {
		Capabilities             *capabilities
		Privileged               *bool
		SELinuxOptions           *seLinux
		WindowsOptions           *windows
		RunAsUser                *int64
		RunAsGroup               *int64
		RunAsNonRoot             *bool
		ReadOnlyRootFilesystem   *bool
		AllowPrivilegeEscalation *bool
		ProcMount                *corev1.ProcMountType
		SeccompProfile           *profile
		AppArmorProfile          *profile
	}{
		Privileged: sc.Privileged, RunAsUser: sc.RunAsUser, RunAsGroup: sc.RunAsGroup,
		RunAsNonRoot: sc.RunAsNonRoot, ReadOnlyRootFilesystem: sc.ReadOnlyRootFilesystem,
		AllowPrivilegeEscalation: sc.AllowPrivilegeEscalation, ProcMount: sc.ProcMount,
	}
	if c := sc.Capabilities; c != nil {
		out.Capabilities = &capabilities{Add: c.Add, Drop: c.Drop}
	}
	if o := sc.SELinuxOptions; o != nil {
		out.SELinuxOptions = &seLinux{o.User, o.Role, o.Type, o.Level}
	}
	if o := sc.WindowsOptions; o != nil {
		out.WindowsOptions = &windows{o.GMSACredentialSpecName, o.GMSACredentialSpec, o.RunAsUserName, o.HostProcess}
	}
	if s := sc.SeccompProfile; s != nil {
		out.SeccompProfile = &profile{string(s.Type), s.LocalhostProfile}
	}
	if s := sc.AppArmorProfile; s != nil {
		out.AppArmorProfile = &profile{string(s.Type), s.LocalhostProfile}
	}
	return out
}

// volumeSourceOrder is the order in which kube-apiserver counts a volume's
// sources: the first one set is the volume's, every later one is refused.
var volumeSourceOrder = []string{
	"emptyDir", "hostPath", "gitRepo", "gcePersistentDisk", "awsElasticBlockStore", "secret", "nfs",
	"iscsi", "glusterfs", "flocker", "persistentVolumeClaim", "rbd", "cinder", "cephfs", "quobyte",
	"downwardAPI", "fc", "azureFile", "vsphereVolume", "photonPersistentDisk", "portworxVolume",
	"azureDisk", "storageos", "projected", "scaleIO", "configMap", "csi", "ephemeral", "image",
}

// hostPathTypes are the supported hostPath types, as kube-apiserver lists them.
var hostPathTypes = []string{"", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"}

// standardResources are the resource names without a domain that
// kube-apiserver knows; standardContainerResources those a container may ask for.
var (
	standardResources = []string{"cpu", "memory", "ephemeral-storage", "storage", "pods", "services",
		"replicationcontrollers", "resourcequotas", "secrets", "configmaps", "persistentvolumeclaims",
		"services.nodeports", "services.loadbalancers", "requests.cpu", "requests.memory",
		"requests.storage", "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage"}
	standardContainerResources = []string{"cpu", "memory", "ephemeral-storage"}
)

func validateContainerResourceName(name corev1.ResourceName, p *field.Path) field.ErrorList {
	s := string(name)
	errs := qualifiedName(s, p)
	if len(errs) > 0 {
		return errs
	}
	if strings.Contains(s, "/") {
		return nil
	}
	huge := strings.HasPrefix(s, corev1.ResourceHugePagesPrefix)
	if !huge && !slices.Contains(standardResources, s) && !strings.HasPrefix(s, "requests.hugepages-") && !strings.HasPrefix(s, "limits.hugepages-") {
		errs = append(errs, field.Invalid(p, s, "must be a standard resource type or fully qualified"))
	}
	if !huge && !slices.Contains(standardContainerResources, s) {
		errs = append(errs, field.Invalid(p, s, "must be a standard resource for containers"))
	}
	return errs
}

// podWarnings are kube-apiserver's warnings about settings that are
// accepted but almost certainly not meant.
func podWarnings(spec *corev1.PodSpec, p *field.Path) []string {
	var out []string
	for i, s := range spec.ImagePullSecrets {
		if s.Name == "" {
			out = append(out, fmt.Sprintf("%s: invalid empty name %q", p.Child("imagePullSecrets").Index(i).Child("name"), s.Name))
		}
	}
	return out
}
