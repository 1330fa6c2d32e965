package noderestriction

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// kubeletLabels are the kubernetes.io labels a kubelet sets on its own
// Node (k8s.io/kubelet's list).
var kubeletLabels = []string{
	corev1.LabelHostname,
	corev1.LabelTopologyZone,
	corev1.LabelTopologyRegion,
	corev1.LabelFailureDomainBetaZone,
	corev1.LabelFailureDomainBetaRegion,
	corev1.LabelInstanceType,
	corev1.LabelInstanceTypeStable,
	corev1.LabelOSStable,
	corev1.LabelArchStable,
	"beta.kubernetes.io/os",
	"beta.kubernetes.io/arch",
}

// kubeletLabelNamespaces are the label prefixes, with their subdomains, a
// kubelet may use freely.
var kubeletLabelNamespaces = []string{"kubelet.kubernetes.io", "node.kubernetes.io"}

// modifiedLabels returns, sorted, the keys whose presence or value differs
// between x and y.
func modifiedLabels(x, y map[string]string) []string {
	var keys []string
	for k, v := range x {
		if w, ok := y[k]; !ok || v != w {
			keys = append(keys, k)
		}
	}
	for k := range y {
		if _, ok := x[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// forbiddenLabels returns the keys a node may not add, remove or change:
// those under node-restriction.kubernetes.io, which administrators use to
// steer workloads, and every other kubernetes.io or k8s.io label but the
// kubelet's own.
func forbiddenLabels(keys []string) []string {
	var bad []string
	for _, k := range keys {
		ns := labelNamespace(k)
		if inDomain(ns, corev1.LabelNamespaceNodeRestriction) || (isKubernetesLabel(ns) && !isKubeletLabel(k, ns)) {
			bad = append(bad, k)
		}
	}
	return bad
}

// labelNamespace is the prefix of a label key, "" without one.
func labelNamespace(key string) string {
	ns, _, ok := strings.Cut(key, "/")
	if !ok {
		return ""
	}
	return ns
}

// inDomain reports whether ns is domain or one of its subdomains.
func inDomain(ns, domain string) bool {
	return ns == domain || strings.HasSuffix(ns, "."+domain)
}

func isKubernetesLabel(ns string) bool {
	return inDomain(ns, "kubernetes.io") || inDomain(ns, "k8s.io")
}

func isKubeletLabel(key, ns string) bool {
	if slices.Contains(kubeletLabels, key) {
		return true
	}
	for _, allowed := range kubeletLabelNamespaces {
		if inDomain(ns, allowed) {
			return true
		}
	}
	return false
}
