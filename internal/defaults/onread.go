package defaults

import (
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// OnRead is what kube-apiserver does to every built-in object it reads
// from storage. Its storage codec defaults what it decodes, so an object
// stored without a default (before the default existed, or by a server
// that adds it only on read, as kube-apiserver does with a Job's labels)
// reads as defaulted; and its Service storage presents Services stored
// before ClusterIP became plural, or before dual-stack, with their
// clusterIPs, ipFamilies and ipFamilyPolicy. Defaults are idempotent, so
// objects portcullis wrote, already defaulted, read unchanged.
func OnRead(obj runtime.Object) {
	Apply(obj)
	if s, ok := obj.(*corev1.Service); ok && s != nil {
		serviceOnRead(s)
	}
}

// primaryIPFamily is the family of the first service CIDR: portcullis
// allocates no cluster IPs and takes kube-apiserver's default range's.
const primaryIPFamily = corev1.IPv4Protocol

func serviceOnRead(s *corev1.Service) {
	spec := &s.Spec
	if spec.ClusterIP != "" && len(spec.ClusterIPs) == 0 {
		spec.ClusterIPs = []string{spec.ClusterIP}
	}
	if spec.Type == corev1.ServiceTypeExternalName {
		// kube-apiserver once defaulted it here where it means nothing,
		// and drops it when read.
		spec.InternalTrafficPolicy = nil
		return
	}
	if len(spec.IPFamilies) > 0 {
		return
	}
	single, dual := corev1.IPFamilyPolicySingleStack, corev1.IPFamilyPolicyRequireDualStack
	switch {
	case spec.ClusterIP == corev1.ClusterIPNone && len(spec.Selector) == 0:
		// Headless without a selector: its endpoints may be of either
		// family.
		spec.IPFamilyPolicy = &dual
		spec.IPFamilies = []corev1.IPFamily{primaryIPFamily, corev1.IPv6Protocol}
	case spec.ClusterIP == corev1.ClusterIPNone:
		spec.IPFamilyPolicy = &single
		spec.IPFamilies = []corev1.IPFamily{primaryIPFamily}
	case len(spec.ClusterIPs) > 0:
		for _, ip := range spec.ClusterIPs {
			family := corev1.IPv4Protocol
			if a, err := netip.ParseAddr(ip); err == nil && a.Is6() && !a.Is4In6() {
				family = corev1.IPv6Protocol
			}
			spec.IPFamilies = append(spec.IPFamilies, family)
		}
		switch len(spec.IPFamilies) {
		case 1:
			spec.IPFamilyPolicy = &single
		case 2:
			spec.IPFamilyPolicy = &dual
		}
	}
}
