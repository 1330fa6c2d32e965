package node

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// audiences is what the service account token audience restriction needs
// beyond the graph, which already knows each pod's service account and
// claims, and each claim's volumes.
type audiences struct {
	// pods holds, for the bound, non-mirror pods that have any, the
	// audiences of their projected service account token volumes and the
	// drivers of their inline CSI volumes.
	pods map[podName]podAudiences
	// drivers holds the audiences of each CSIDriver's spec.tokenRequests.
	drivers map[string][]string
	// pvDrivers holds the CSI driver of each bound CSI persistent volume.
	pvDrivers map[string]string
}

type podName struct{ namespace, name string }

type podAudiences struct {
	audiences []string
	drivers   []string
}

func newAudiences() audiences {
	return audiences{
		pods:      map[podName]podAudiences{},
		drivers:   map[string][]string{},
		pvDrivers: map[string]string{},
	}
}

// podAudiencesOf collects the audiences a pod names directly and the
// drivers of its inline CSI volumes.
func podAudiencesOf(pod *corev1.Pod) podAudiences {
	var pa podAudiences
	for i := range pod.Spec.Volumes {
		s := &pod.Spec.Volumes[i].VolumeSource
		switch {
		case s.Projected != nil:
			for _, p := range s.Projected.Sources {
				if t := p.ServiceAccountToken; t != nil && t.Audience != "" && !slices.Contains(pa.audiences, t.Audience) {
					pa.audiences = append(pa.audiences, t.Audience)
				}
			}
		case s.CSI != nil:
			if d := s.CSI.Driver; d != "" && !slices.Contains(pa.drivers, d) {
				pa.drivers = append(pa.drivers, d)
			}
		}
	}
	return pa
}

// podClaims appends the claims a pod mounts, persistent and ephemeral.
func podClaims(dst []string, pod *corev1.Pod) []string {
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		switch {
		case v.PersistentVolumeClaim != nil:
			dst = append(dst, v.PersistentVolumeClaim.ClaimName)
		case v.Ephemeral != nil && v.Ephemeral.VolumeClaimTemplate != nil:
			dst = append(dst, ephemeralClaimName(pod, v))
		}
	}
	return dst
}

func (au *audiences) setPod(pod *corev1.Pod) {
	n := podName{pod.Namespace, pod.Name}
	pa := podAudiencesOf(pod)
	if len(pa.audiences) == 0 && len(pa.drivers) == 0 {
		delete(au.pods, n)
		return
	}
	au.pods[n] = pa
}

func (au *audiences) setCSIDriver(d *storagev1.CSIDriver) {
	var auds []string
	for _, r := range d.Spec.TokenRequests {
		if !slices.Contains(auds, r.Audience) {
			auds = append(auds, r.Audience)
		}
	}
	if len(auds) == 0 {
		delete(au.drivers, d.Name)
		return
	}
	au.drivers[d.Name] = auds
}

// driverHas reports whether the CSI driver requests tokens for audience.
func (au *audiences) driverHas(driver, audience string) bool {
	return slices.Contains(au.drivers[driver], audience)
}

// AudienceAllowed reports whether the node may request a token for the
// service account with the given audience without a further
// authorization check (the ServiceAccountNodeAudienceRestriction rule):
// the audience is empty or one of the API server's audiences, or a pod
// bound to the node that runs as the service account names it, in a
// projected service account token volume or through the spec.tokenRequests
// of a CSIDriver it uses (inline, or through a persistent or ephemeral
// volume claim bound to a CSI volume).
//
// kube-apiserver checks the one pod the token is bound to; when the
// caller knows that pod, PodAudienceAllowed is the exact rule. This one
// answers for the node as a whole. When it is false, NodeRestriction asks
// the authorizer chain for verb request-serviceaccounts-token-audience,
// resource <audience>, name <serviceAccount>, in the namespace.
func (a *Authorizer) AudienceAllowed(nodeName, namespace, serviceAccount, audience string, apiAudiences []string) bool {
	if a.anyAudience || audience == "" || slices.Contains(apiAudiences, audience) {
		return true
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	g := a.g
	n, ok := g.lookup(key{kind: kindNode, name: nodeName})
	if !ok {
		return false
	}
	sa, ok := g.lookup(key{kind: kindServiceAccount, namespace: namespace, name: serviceAccount})
	if !ok {
		return false
	}
	ns := g.vx(sa).key.ns
	found := false
	g.vx(n).in.each(func(p uint32) bool {
		v := g.vx(p)
		if v.key.kind == kindPod && v.key.ns == ns && v.in.has(sa) {
			found = a.podHasAudience(p, audience)
		}
		return !found
	})
	return found
}

// podHasAudience reports whether the pod vertex p names the audience.
func (a *Authorizer) podHasAudience(p uint32, audience string) bool {
	g := a.g
	k := g.keyOf(p)
	pa := a.aud.pods[podName{k.namespace, k.name}]
	if slices.Contains(pa.audiences, audience) {
		return true
	}
	for _, d := range pa.drivers {
		if a.aud.driverHas(d, audience) {
			return true
		}
	}
	found := false
	g.vx(p).in.each(func(c uint32) bool {
		if g.vx(c).key.kind == kindPVC {
			found = a.claimHasAudience(c, audience)
		}
		return !found
	})
	return found
}

// claimHasAudience reports whether a volume bound to the claim vertex c
// belongs to a CSI driver that requests tokens for the audience.
func (a *Authorizer) claimHasAudience(c uint32, audience string) bool {
	g := a.g
	found := false
	g.vx(c).in.each(func(pv uint32) bool {
		if d, ok := a.aud.pvDrivers[g.vx(pv).key.name]; ok && g.vx(pv).key.kind == kindPV {
			found = a.aud.driverHas(d, audience)
		}
		return !found
	})
	return found
}

// PodAudienceAllowed is AudienceAllowed for the one pod a token is bound
// to, as kube-apiserver's NodeRestriction checks it: the audience is empty
// or an API server audience, or the pod names it in a projected service
// account token volume or through a CSI driver it uses. The caller has
// already checked that the pod is bound to the requesting node.
func (a *Authorizer) PodAudienceAllowed(pod *corev1.Pod, audience string, apiAudiences []string) bool {
	if a.anyAudience || audience == "" || slices.Contains(apiAudiences, audience) {
		return true
	}
	pa := podAudiencesOf(pod)
	if slices.Contains(pa.audiences, audience) {
		return true
	}
	a.mu.RLock()
	defer a.mu.RUnlock()
	for _, d := range pa.drivers {
		if a.aud.driverHas(d, audience) {
			return true
		}
	}
	for _, claim := range podClaims(nil, pod) {
		if c, ok := a.g.lookup(key{kind: kindPVC, namespace: pod.Namespace, name: claim}); ok && a.claimHasAudience(c, audience) {
			return true
		}
	}
	return false
}
