package validation

import (
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The pod checks: container names and images, ports, env names, volume
// mounts, resources and the pod-level policies here; scheduling
// constraints, probes and security contexts in core_podspec.go.

var supportedPortProtocols = []string{"SCTP", "TCP", "UDP"}

func validatePod(pod *corev1.Pod) field.ErrorList {
	errs := validateMeta(&pod.ObjectMeta, true, nameIsDNSSubdomain)
	sp := field.NewPath("spec")
	errs = append(errs, validatePodSpec(&pod.Spec, sp)...)
	// Leading or trailing blanks in an image would only fail at pull time.
	for i, c := range pod.Spec.Containers {
		errs = append(errs, imageWhitespace(c.Image, sp.Child("containers").Index(i).Child("image"))...)
	}
	for i, c := range pod.Spec.InitContainers {
		errs = append(errs, imageWhitespace(c.Image, sp.Child("initContainers").Index(i).Child("image"))...)
	}
	if len(pod.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(sp.Child("ephemeralContainers"), "cannot be set on create"))
	}
	if pod.Spec.NodeName != "" && len(pod.Spec.SchedulingGates) != 0 {
		errs = append(errs, field.Forbidden(sp.Child("nodeName"), "cannot be set until all schedulingGates have been cleared"))
	}
	return errs
}

func imageWhitespace(image string, p *field.Path) field.ErrorList {
	if len(strings.TrimSpace(image)) != len(image) {
		return field.ErrorList{field.Invalid(p, image, "must not have leading or trailing whitespace")}
	}
	return nil
}

// validatePodTemplate checks a workload's pod template. Its labels are
// reported under template.labels, as the reference does.
func validatePodTemplate(t *corev1.PodTemplateSpec, p *field.Path) field.ErrorList {
	errs := metav1validation.ValidateLabels(t.Labels, p.Child("labels"))
	errs = append(errs, validateAnnotations(t.Annotations, p.Child("annotations"))...)
	errs = append(errs, validatePodSpec(&t.Spec, p.Child("spec"))...)
	if len(t.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(p.Child("spec", "ephemeralContainers"), "ephemeral containers not allowed in pod template"))
	}
	return errs
}

func validatePodSpec(spec *corev1.PodSpec, p *field.Path) field.ErrorList {
	volumes, errs := validateVolumes(spec.Volumes, p.Child("volumes"))
	errs = append(errs, validateContainers(spec.Containers, volumes, p.Child("containers"))...)
	errs = append(errs, validateInitContainers(spec.InitContainers, spec.Containers, volumes, p.Child("initContainers"))...)
	errs = append(errs, validateRestartPolicy(spec.RestartPolicy, p.Child("restartPolicy"))...)
	errs = append(errs, validateDNSPolicy(spec.DNSPolicy, p.Child("dnsPolicy"))...)
	if spec.DNSPolicy == corev1.DNSNone && spec.DNSConfig == nil {
		errs = append(errs, field.Required(p.Child("dnsConfig"), fmt.Sprintf("must provide `dnsConfig` when `dnsPolicy` is %s", corev1.DNSNone)))
	}
	errs = append(errs, metav1validation.ValidateLabels(spec.NodeSelector, p.Child("nodeSelector"))...)
	if spec.ServiceAccountName != "" {
		for _, msg := range nameIsDNSSubdomain(spec.ServiceAccountName, false) {
			errs = append(errs, field.Invalid(p.Child("serviceAccountName"), spec.ServiceAccountName, msg))
		}
	}
	if spec.NodeName != "" {
		for _, msg := range nameIsDNSSubdomain(spec.NodeName, false) {
			errs = append(errs, field.Invalid(p.Child("nodeName"), spec.NodeName, msg))
		}
	}
	if spec.ActiveDeadlineSeconds != nil {
		if v := *spec.ActiveDeadlineSeconds; v < 1 || v > math.MaxInt32 {
			errs = append(errs, field.Invalid(p.Child("activeDeadlineSeconds"), v, utilvalidation.InclusiveRangeError(1, math.MaxInt32)))
		}
	}
	if spec.Hostname != "" {
		errs = append(errs, dns1123Label(spec.Hostname, p.Child("hostname"))...)
	}
	if spec.Subdomain != "" {
		errs = append(errs, dns1123Label(spec.Subdomain, p.Child("subdomain"))...)
	}
	return append(errs, validatePodSpecDetails(spec, p)...)
}

func validateRestartPolicy(rp corev1.RestartPolicy, p *field.Path) field.ErrorList {
	switch rp {
	case corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
		return nil
	case "":
		return field.ErrorList{field.Required(p, "")}
	default:
		return field.ErrorList{field.NotSupported(p, rp, []string{"Always", "OnFailure", "Never"})}
	}
}

func validateDNSPolicy(dp corev1.DNSPolicy, p *field.Path) field.ErrorList {
	switch dp {
	case corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone:
		return nil
	case "":
		return field.ErrorList{field.Required(p, "")}
	default:
		return field.ErrorList{field.NotSupported(p, dp, []string{"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"})}
	}
}

func validateContainers(containers []corev1.Container, volumes map[string]bool, p *field.Path) field.ErrorList {
	if len(containers) == 0 {
		return field.ErrorList{field.Required(p, "")}
	}
	var errs field.ErrorList
	names := map[string]bool{}
	for i := range containers {
		cp := p.Index(i)
		errs = append(errs, validateContainer(&containers[i], volumes, cp)...)
		if names[containers[i].Name] {
			errs = append(errs, field.Duplicate(cp.Child("name"), containers[i].Name))
		}
		names[containers[i].Name] = true
	}
	return errs
}

// validateInitContainers also rejects names that clash with a regular
// container, and restart policies other than Always (sidecars).
func validateInitContainers(inits, containers []corev1.Container, volumes map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for _, c := range containers {
		names[c.Name] = true
	}
	for i := range inits {
		cp := p.Index(i)
		c := &inits[i]
		errs = append(errs, validateContainer(c, volumes, cp)...)
		if names[c.Name] {
			errs = append(errs, field.Duplicate(cp.Child("name"), c.Name))
		}
		names[c.Name] = true
		if rp := c.RestartPolicy; rp != nil && *rp != corev1.ContainerRestartPolicyAlways &&
			*rp != corev1.ContainerRestartPolicyOnFailure && *rp != corev1.ContainerRestartPolicyNever {
			errs = append(errs, field.NotSupported(cp.Child("restartPolicy"), *rp, []string{"Always", "OnFailure", "Never"}))
		}
	}
	return errs
}

func validateContainer(c *corev1.Container, volumes map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.Name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		errs = append(errs, dns1123Label(c.Name, p.Child("name"))...)
	}
	if c.Image == "" {
		errs = append(errs, field.Required(p.Child("image"), ""))
	}
	switch c.TerminationMessagePolicy {
	case corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError:
	case "":
		errs = append(errs, field.Required(p.Child("terminationMessagePolicy"), ""))
	default:
		errs = append(errs, field.NotSupported(p.Child("terminationMessagePolicy"), c.TerminationMessagePolicy, []string{"File", "FallbackToLogsOnError"}))
	}
	errs = append(errs, validateContainerPorts(c.Ports, p.Child("ports"))...)
	errs = append(errs, validateEnv(c.Env, p.Child("env"))...)
	errs = append(errs, validateVolumeMounts(c.VolumeMounts, volumes, p.Child("volumeMounts"))...)
	switch c.ImagePullPolicy {
	case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	case "":
		errs = append(errs, field.Required(p.Child("imagePullPolicy"), ""))
	default:
		errs = append(errs, field.NotSupported(p.Child("imagePullPolicy"), c.ImagePullPolicy, []string{"Always", "IfNotPresent", "Never"}))
	}
	errs = append(errs, validateContainerResources(&c.Resources, p.Child("resources"))...)
	return append(errs, validateContainerDetails(c, p)...)
}

// validateContainerResources adds to the quantity checks those of the
// names, and that huge pages come with cpu or memory.
func validateContainerResources(r *corev1.ResourceRequirements, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	huge, cpuOrMemory := false, false
	for _, l := range []struct {
		list corev1.ResourceList
		path *field.Path
	}{{r.Limits, p.Child("limits")}, {r.Requests, p.Child("requests")}} {
		for _, name := range sortedResourceNames(l.list) {
			errs = append(errs, validateContainerResourceName(name, l.path.Key(string(name)))...)
			huge = huge || strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
			cpuOrMemory = cpuOrMemory || name == corev1.ResourceCPU || name == corev1.ResourceMemory
		}
	}
	errs = append(errs, validateResourceRequirements(r, p)...)
	if huge && !cpuOrMemory {
		errs = append(errs, field.Forbidden(p, "HugePages require cpu or memory"))
	}
	return errs
}

func validateContainerPorts(ports []corev1.ContainerPort, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i, port := range ports {
		ip := p.Index(i)
		if port.Name != "" {
			if msgs := utilvalidation.IsValidPortName(port.Name); len(msgs) != 0 {
				for _, msg := range msgs {
					errs = append(errs, field.Invalid(ip.Child("name"), port.Name, msg))
				}
			} else if names[port.Name] {
				errs = append(errs, field.Duplicate(ip.Child("name"), port.Name))
			} else {
				names[port.Name] = true
			}
		}
		if port.ContainerPort == 0 {
			errs = append(errs, field.Required(ip.Child("containerPort"), ""))
		} else {
			for _, msg := range utilvalidation.IsValidPortNum(int(port.ContainerPort)) {
				errs = append(errs, field.Invalid(ip.Child("containerPort"), port.ContainerPort, msg))
			}
		}
		if port.HostPort != 0 {
			for _, msg := range utilvalidation.IsValidPortNum(int(port.HostPort)) {
				errs = append(errs, field.Invalid(ip.Child("hostPort"), port.HostPort, msg))
			}
		}
		errs = append(errs, validateProtocol(port.Protocol, ip.Child("protocol"))...)
	}
	return errs
}

func validateProtocol(proto corev1.Protocol, p *field.Path) field.ErrorList {
	if proto == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if !contains(supportedPortProtocols, string(proto)) {
		return field.ErrorList{field.NotSupported(p, proto, supportedPortProtocols)}
	}
	return nil
}

func validateEnv(env []corev1.EnvVar, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, ev := range env {
		ip := p.Index(i)
		if ev.Name == "" {
			errs = append(errs, field.Required(ip.Child("name"), ""))
		}
		for _, msg := range utilvalidation.IsRelaxedEnvVarName(ev.Name) {
			errs = append(errs, field.Invalid(ip.Child("name"), ev.Name, msg))
		}
		errs = append(errs, validateEnvVarSource(ev, ip.Child("valueFrom"))...)
	}
	return errs
}

func validateEnvVarSource(ev corev1.EnvVar, p *field.Path) field.ErrorList {
	src := ev.ValueFrom
	if src == nil {
		return nil
	}
	var errs field.ErrorList
	n := 0
	if src.FieldRef != nil {
		n++
		if src.FieldRef.FieldPath == "" {
			errs = append(errs, field.Required(p.Child("fieldRef", "fieldPath"), ""))
		}
	}
	if src.ResourceFieldRef != nil {
		n++
		if src.ResourceFieldRef.Resource == "" {
			errs = append(errs, field.Required(p.Child("resourceFieldRef", "resource"), ""))
		}
	}
	if src.ConfigMapKeyRef != nil {
		n++
		errs = append(errs, validateKeyRef(src.ConfigMapKeyRef.Name, src.ConfigMapKeyRef.Key, p.Child("configMapKeyRef"))...)
	}
	if src.SecretKeyRef != nil {
		n++
		errs = append(errs, validateKeyRef(src.SecretKeyRef.Name, src.SecretKeyRef.Key, p.Child("secretKeyRef"))...)
	}
	if src.FileKeyRef != nil {
		n++
	}
	switch {
	case n == 0:
		errs = append(errs, field.Invalid(p, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"))
	case n > 1:
		errs = append(errs, field.Invalid(p, "", "may not have more than one field specified at a time"))
	case ev.Value != "":
		errs = append(errs, field.Invalid(p, "", "may not be specified when `value` is not empty"))
	}
	return errs
}

func validateKeyRef(name, key string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if key == "" {
		errs = append(errs, field.Required(p.Child("key"), ""))
	} else {
		for _, msg := range utilvalidation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(p.Child("key"), key, msg))
		}
	}
	if name == "" {
		errs = append(errs, field.Required(p.Child("name"), ""))
	} else {
		for _, msg := range nameIsDNSSubdomain(name, false) {
			errs = append(errs, field.Invalid(p.Child("name"), name, msg))
		}
	}
	return errs
}

func validateVolumeMounts(mounts []corev1.VolumeMount, volumes map[string]bool, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	paths := map[string]bool{}
	for i, m := range mounts {
		ip := p.Index(i)
		if m.Name == "" {
			errs = append(errs, field.Required(ip.Child("name"), ""))
		}
		if !volumes[m.Name] {
			errs = append(errs, field.NotFound(ip.Child("name"), m.Name))
		}
		if m.MountPath == "" {
			errs = append(errs, field.Required(ip.Child("mountPath"), ""))
		}
		if paths[m.MountPath] {
			errs = append(errs, field.Invalid(ip.Child("mountPath"), m.MountPath, "must be unique"))
		}
		paths[m.MountPath] = true
	}
	return errs
}

// validateVolumes checks names and that each volume has exactly one source,
// and returns the set of names for the mounts to refer to.
func validateVolumes(vols []corev1.Volume, p *field.Path) (map[string]bool, field.ErrorList) {
	var errs field.ErrorList
	names := map[string]bool{}
	for i := range vols {
		v := &vols[i]
		ip := p.Index(i)
		errs = append(errs, validateVolumeSource(&v.VolumeSource, ip)...)
		if v.Name == "" {
			errs = append(errs, field.Required(ip.Child("name"), ""))
		} else {
			errs = append(errs, dns1123Label(v.Name, ip.Child("name"))...)
		}
		if names[v.Name] {
			errs = append(errs, field.Duplicate(ip.Child("name"), v.Name))
		}
		if v.Name != "" {
			names[v.Name] = true
		}
	}
	return names, errs
}

func validateVolumeSource(src *corev1.VolumeSource, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	set := setVolumeSources(src)
	slices.SortFunc(set, func(a, b string) int { return slices.Index(volumeSourceOrder, a) - slices.Index(volumeSourceOrder, b) })
	if len(set) == 0 {
		return field.ErrorList{field.Required(p, "must specify a volume type")}
	}
	for _, name := range set[1:] {
		errs = append(errs, field.Forbidden(p.Child(name), "may not specify more than 1 volume type"))
	}
	switch {
	case src.ConfigMap != nil && src.ConfigMap.Name == "":
		errs = append(errs, field.Required(p.Child("configMap", "name"), ""))
	case src.Secret != nil && src.Secret.SecretName == "":
		errs = append(errs, field.Required(p.Child("secret", "secretName"), ""))
	case src.PersistentVolumeClaim != nil && src.PersistentVolumeClaim.ClaimName == "":
		errs = append(errs, field.Required(p.Child("persistentVolumeClaim", "claimName"), ""))
	case src.HostPath != nil && src.HostPath.Path == "":
		errs = append(errs, field.Required(p.Child("hostPath", "path"), ""))
	case src.HostPath != nil && src.HostPath.Type != nil && !contains(hostPathTypes, string(*src.HostPath.Type)):
		errs = append(errs, field.NotSupported(p.Child("hostPath", "type"), *src.HostPath.Type, hostPathTypes))
	}
	return errs
}

// updatablePodSpecFields is what the reference lists when it rejects a pod
// spec change.
var updatablePodSpecFields = []string{
	"`spec.containers[*].image`",
	"`spec.initContainers[*].image`",
	"`spec.activeDeadlineSeconds`",
	"`spec.tolerations` (only additions to existing tolerations)",
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
}

// validatePodUpdate allows only the few pod spec changes a running pod can
// absorb: images, a shorter deadline, added tolerations, removed
// scheduling gates.
func validatePodUpdate(pod, old *corev1.Pod) field.ErrorList {
	errs := validateMetaUpdate(&pod.ObjectMeta, &old.ObjectMeta)
	errs = append(errs, validateMeta(&pod.ObjectMeta, true, nameIsDNSSubdomain)...)
	sp := field.NewPath("spec")
	if len(pod.Spec.Containers) != len(old.Spec.Containers) {
		return append(errs, field.Forbidden(sp.Child("containers"), "pod updates may not add or remove containers"))
	}
	for i, c := range pod.Spec.Containers {
		ip := sp.Child("containers").Index(i).Child("image")
		if c.Image == "" {
			errs = append(errs, field.Required(ip, ""))
		}
		errs = append(errs, imageWhitespace(c.Image, ip)...)
	}
	for i, c := range pod.Spec.InitContainers {
		ip := sp.Child("initContainers").Index(i).Child("image")
		if c.Image == "" {
			errs = append(errs, field.Required(ip, ""))
		}
		errs = append(errs, imageWhitespace(c.Image, ip)...)
	}
	ad := sp.Child("activeDeadlineSeconds")
	if pod.Spec.ActiveDeadlineSeconds != nil {
		v := *pod.Spec.ActiveDeadlineSeconds
		if v < 0 || v > math.MaxInt32 {
			return append(errs, field.Invalid(ad, v, utilvalidation.InclusiveRangeError(0, math.MaxInt32)))
		}
		if old.Spec.ActiveDeadlineSeconds != nil && *old.Spec.ActiveDeadlineSeconds < v {
			return append(errs, field.Invalid(ad, v, "must be less than or equal to previous value"))
		}
	} else if old.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Invalid(ad, pod.Spec.ActiveDeadlineSeconds, "must not update from a positive integer to nil value"))
	}
	munged := *pod.Spec.DeepCopy()
	for i := range munged.Containers {
		munged.Containers[i].Image = old.Spec.Containers[i].Image
	}
	if len(munged.InitContainers) == len(old.Spec.InitContainers) {
		for i := range munged.InitContainers {
			munged.InitContainers[i].Image = old.Spec.InitContainers[i].Image
		}
	}
	munged.ActiveDeadlineSeconds = old.Spec.ActiveDeadlineSeconds
	if tolerationsAdded(munged.Tolerations, old.Spec.Tolerations) {
		munged.Tolerations = old.Spec.Tolerations
	}
	if g := old.Spec.TerminationGracePeriodSeconds; g != nil && *g < 0 && munged.TerminationGracePeriodSeconds != nil && *munged.TerminationGracePeriodSeconds == 1 {
		munged.TerminationGracePeriodSeconds = g
	}
	if gatesRemoved(munged.SchedulingGates, old.Spec.SchedulingGates) {
		munged.SchedulingGates = old.Spec.SchedulingGates
	}
	if !equality.Semantic.DeepEqual(munged, old.Spec) {
		diff := specDiff(old.Spec, munged)
		errs = append(errs, field.Forbidden(sp, fmt.Sprintf("pod updates may not change fields other than %s\n%v", strings.Join(updatablePodSpecFields, ","), diff)))
	}
	return errs
}

// tolerationsAdded reports whether every old toleration is still present.
func tolerationsAdded(cur, old []corev1.Toleration) bool {
	for _, o := range old {
		found := false
		for _, c := range cur {
			if equality.Semantic.DeepEqual(o, c) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// gatesRemoved reports whether cur only drops gates from old.
func gatesRemoved(cur, old []corev1.PodSchedulingGate) bool {
	have := map[string]bool{}
	for _, g := range old {
		have[g.Name] = true
	}
	for _, g := range cur {
		if !have[g.Name] {
			return false
		}
	}
	return true
}
