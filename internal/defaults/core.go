package defaults

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Values kube-apiserver uses.
const (
	terminationGracePeriodSeconds = 30
	defaultSchedulerName          = "default-scheduler"
	terminationMessagePath        = "/dev/termination-log"
	defaultFileMode               = int32(0o644)
	clientIPAffinitySeconds       = int32(10800)
	namespaceNameLabel            = "kubernetes.io/metadata.name"
)

// namespace labels itself with its name, so that selectors can pick
// namespaces by name.
func namespace(ns *corev1.Namespace) {
	if ns.Name == "" {
		return
	}
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[namespaceNameLabel] = ns.Name
}

func pod(p *corev1.Pod) {
	// Requests default to limits on pods (not templates): a pod that only
	// sets limits is Guaranteed.
	for _, list := range [][]corev1.Container{p.Spec.Containers, p.Spec.InitContainers} {
		for i := range list {
			requestsFromLimits(&list[i].Resources)
		}
	}
	if p.Spec.EnableServiceLinks == nil {
		p.Spec.EnableServiceLinks = ptr(true)
	}
	if p.Spec.HostNetwork {
		hostNetworkPorts(p.Spec.Containers)
		hostNetworkPorts(p.Spec.InitContainers)
	}
	podSpec(&p.Spec)
}

func requestsFromLimits(r *corev1.ResourceRequirements) {
	if r.Limits == nil {
		return
	}
	if r.Requests == nil {
		r.Requests = corev1.ResourceList{}
	}
	for k, v := range r.Limits {
		if _, ok := r.Requests[k]; !ok {
			r.Requests[k] = v.DeepCopy()
		}
	}
}

// hostNetworkPorts makes host ports explicit: on the host network a
// container port is a host port.
func hostNetworkPorts(cs []corev1.Container) {
	for i := range cs {
		for j := range cs[i].Ports {
			if cs[i].Ports[j].HostPort == 0 {
				cs[i].Ports[j].HostPort = cs[i].Ports[j].ContainerPort
			}
		}
	}
}

// podSpec applies the pod spec defaults, shared by pods and the templates
// of workloads.
func podSpec(s *corev1.PodSpec) {
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
	}
	if s.TerminationGracePeriodSeconds == nil {
		s.TerminationGracePeriodSeconds = ptr(int64(terminationGracePeriodSeconds))
	}
	if s.SchedulerName == "" {
		s.SchedulerName = defaultSchedulerName
	}
	for i := range s.Volumes {
		volume(&s.Volumes[i])
	}
	for i := range s.Containers {
		container(&s.Containers[i])
	}
	for i := range s.InitContainers {
		container(&s.InitContainers[i])
	}
	for i := range s.EphemeralContainers {
		c := &s.EphemeralContainers[i].EphemeralContainerCommon
		if c.TerminationMessagePath == "" {
			c.TerminationMessagePath = terminationMessagePath
		}
		if c.TerminationMessagePolicy == "" {
			c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
		}
		if c.ImagePullPolicy == "" {
			c.ImagePullPolicy = pullPolicy(c.Image)
		}
		env(c.Env)
	}
}

func container(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = pullPolicy(c.Image)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = terminationMessagePath
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	env(c.Env)
	probe(c.LivenessProbe)
	probe(c.ReadinessProbe)
	probe(c.StartupProbe)
	if c.Lifecycle != nil {
		handler(c.Lifecycle.PostStart)
		handler(c.Lifecycle.PreStop)
	}
}

func env(vars []corev1.EnvVar) {
	for i := range vars {
		if f := vars[i].ValueFrom; f != nil && f.FieldRef != nil && f.FieldRef.APIVersion == "" {
			f.FieldRef.APIVersion = "v1"
		}
	}
}

func handler(h *corev1.LifecycleHandler) {
	if h != nil {
		httpGet(h.HTTPGet)
	}
}

func probe(p *corev1.Probe) {
	if p == nil {
		return
	}
	if p.TimeoutSeconds == 0 {
		p.TimeoutSeconds = 1
	}
	if p.PeriodSeconds == 0 {
		p.PeriodSeconds = 10
	}
	if p.SuccessThreshold == 0 {
		p.SuccessThreshold = 1
	}
	if p.FailureThreshold == 0 {
		p.FailureThreshold = 3
	}
	httpGet(p.HTTPGet)
}

func httpGet(g *corev1.HTTPGetAction) {
	if g == nil {
		return
	}
	if g.Path == "" {
		g.Path = "/"
	}
	if g.Scheme == "" {
		g.Scheme = corev1.URISchemeHTTP
	}
}

// pullPolicy is Always for ":latest" or an untagged, undigested image, so
// that a moving tag is re-pulled; IfNotPresent otherwise, including for
// references that do not parse.
func pullPolicy(image string) corev1.PullPolicy {
	if image == "" || strings.ContainsAny(image, " \t\n") {
		return corev1.PullIfNotPresent
	}
	name, digest, hasDigest := strings.Cut(image, "@")
	if hasDigest && digest == "" {
		return corev1.PullIfNotPresent
	}
	tag := ""
	if i := strings.LastIndex(name, ":"); i > strings.LastIndex(name, "/") {
		name, tag = name[:i], name[i+1:]
	}
	// The repository path must be lower case, as in a parsed reference.
	repo := name
	if i := strings.Index(name, "/"); i >= 0 && strings.ContainsAny(name[:i], ".:") {
		repo = name[i+1:] // skip a registry host, which may have upper case
	}
	if repo == "" || strings.ToLower(repo) != repo {
		return corev1.PullIfNotPresent
	}
	if tag == "latest" || (tag == "" && !hasDigest) {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

func volume(v *corev1.Volume) {
	src := &v.VolumeSource
	switch {
	case src.Secret != nil:
		if src.Secret.DefaultMode == nil {
			src.Secret.DefaultMode = ptr(defaultFileMode)
		}
	case src.ConfigMap != nil:
		if src.ConfigMap.DefaultMode == nil {
			src.ConfigMap.DefaultMode = ptr(defaultFileMode)
		}
	case src.DownwardAPI != nil:
		if src.DownwardAPI.DefaultMode == nil {
			src.DownwardAPI.DefaultMode = ptr(defaultFileMode)
		}
		for i := range src.DownwardAPI.Items {
			if f := src.DownwardAPI.Items[i].FieldRef; f != nil && f.APIVersion == "" {
				f.APIVersion = "v1"
			}
		}
	case src.Projected != nil:
		if src.Projected.DefaultMode == nil {
			src.Projected.DefaultMode = ptr(defaultFileMode)
		}
		for i := range src.Projected.Sources {
			if t := src.Projected.Sources[i].ServiceAccountToken; t != nil && t.ExpirationSeconds == nil {
				t.ExpirationSeconds = ptr(int64(3600))
			}
		}
	case src.HostPath != nil:
		if src.HostPath.Type == nil {
			src.HostPath.Type = ptr(corev1.HostPathUnset)
		}
	case src.EmptyDir == nil && noVolumeSource(src):
		// A volume without a source is an emptyDir.
		src.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
}

func noVolumeSource(src *corev1.VolumeSource) bool {
	return *src == corev1.VolumeSource{}
}

func node(n *corev1.Node) {
	// The singular podCIDR and the list are one field in kube-apiserver's
	// internal type: each fills the other.
	if n.Spec.PodCIDR != "" && len(n.Spec.PodCIDRs) == 0 {
		n.Spec.PodCIDRs = []string{n.Spec.PodCIDR}
	} else if n.Spec.PodCIDR == "" && len(n.Spec.PodCIDRs) > 0 {
		n.Spec.PodCIDR = n.Spec.PodCIDRs[0]
	}
	// Until the kubelet reports it, allocatable is the whole capacity.
	if n.Status.Allocatable == nil && n.Status.Capacity != nil {
		n.Status.Allocatable = n.Status.Capacity.DeepCopy()
	}
}

func service(s *corev1.Service) {
	sp := &s.Spec
	if sp.SessionAffinity == "" {
		sp.SessionAffinity = corev1.ServiceAffinityNone
	}
	if sp.SessionAffinity == corev1.ServiceAffinityNone {
		sp.SessionAffinityConfig = nil
	}
	if sp.SessionAffinity == corev1.ServiceAffinityClientIP {
		c := sp.SessionAffinityConfig
		if c == nil || c.ClientIP == nil || c.ClientIP.TimeoutSeconds == nil {
			sp.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr(clientIPAffinitySeconds)}}
		}
	}
	if sp.Type == "" {
		sp.Type = corev1.ServiceTypeClusterIP
	}
	for i := range sp.Ports {
		port := &sp.Ports[i]
		if port.Protocol == "" {
			port.Protocol = corev1.ProtocolTCP
		}
		if port.TargetPort == intstr.FromInt32(0) || port.TargetPort == intstr.FromString("") {
			port.TargetPort = intstr.FromInt32(port.Port)
		}
	}
	external := sp.Type == corev1.ServiceTypeNodePort || sp.Type == corev1.ServiceTypeLoadBalancer
	if external && sp.ExternalTrafficPolicy == "" {
		sp.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if sp.InternalTrafficPolicy == nil && (external || sp.Type == corev1.ServiceTypeClusterIP) {
		sp.InternalTrafficPolicy = ptr(corev1.ServiceInternalTrafficPolicyCluster)
	}
	if sp.Type == corev1.ServiceTypeLoadBalancer && sp.AllocateLoadBalancerNodePorts == nil {
		sp.AllocateLoadBalancerNodePorts = ptr(true)
	}
}

func endpoints(e *corev1.Endpoints) {
	for i := range e.Subsets {
		for j := range e.Subsets[i].Ports {
			if e.Subsets[i].Ports[j].Protocol == "" {
				e.Subsets[i].Ports[j].Protocol = corev1.ProtocolTCP
			}
		}
	}
}

// secret defaults the type and folds stringData into data (stringData
// wins), which kube-apiserver does while converting the request.
func secret(s *corev1.Secret) {
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
	}
	if len(s.StringData) > 0 {
		if s.Data == nil {
			s.Data = map[string][]byte{}
		}
		for k, v := range s.StringData {
			s.Data[k] = []byte(v)
		}
	}
	s.StringData = nil
}

func persistentVolume(pv *corev1.PersistentVolume) {
	if pv.Status.Phase == "" {
		pv.Status.Phase = corev1.VolumePending
	}
	if pv.Spec.PersistentVolumeReclaimPolicy == "" {
		pv.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRetain
	}
	if pv.Spec.VolumeMode == nil {
		pv.Spec.VolumeMode = ptr(corev1.PersistentVolumeFilesystem)
	}
	if pv.Spec.HostPath != nil && pv.Spec.HostPath.Type == nil {
		pv.Spec.HostPath.Type = ptr(corev1.HostPathUnset)
	}
}

func persistentVolumeClaim(pvc *corev1.PersistentVolumeClaim) {
	if pvc.Status.Phase == "" {
		pvc.Status.Phase = corev1.ClaimPending
	}
	if pvc.Spec.VolumeMode == nil {
		pvc.Spec.VolumeMode = ptr(corev1.PersistentVolumeFilesystem)
	}
}

// limitRange fills a container limit's gaps: the default limit from max,
// the default request from the default limit, then from min.
func limitRange(lr *corev1.LimitRange) {
	for i := range lr.Spec.Limits {
		item := &lr.Spec.Limits[i]
		if item.Type != corev1.LimitTypeContainer {
			continue
		}
		if item.Default == nil {
			item.Default = corev1.ResourceList{}
		}
		if item.DefaultRequest == nil {
			item.DefaultRequest = corev1.ResourceList{}
		}
		for k, v := range item.Max {
			if _, ok := item.Default[k]; !ok {
				item.Default[k] = v.DeepCopy()
			}
		}
		for k, v := range item.Default {
			if _, ok := item.DefaultRequest[k]; !ok {
				item.DefaultRequest[k] = v.DeepCopy()
			}
		}
		for k, v := range item.Min {
			if _, ok := item.DefaultRequest[k]; !ok {
				item.DefaultRequest[k] = v.DeepCopy()
			}
		}
	}
}
