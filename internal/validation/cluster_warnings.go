package validation

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// deprecatedNodeLabels are the node labels kube-apiserver warns about when
// a selector uses them, with its advice.
var deprecatedNodeLabels = map[string]string{
	"beta.kubernetes.io/arch":                       `deprecated since v1.14; use "kubernetes.io/arch" instead`,
	"beta.kubernetes.io/os":                         `deprecated since v1.14; use "kubernetes.io/os" instead`,
	"failure-domain.beta.kubernetes.io/region":      `deprecated since v1.17; use "topology.kubernetes.io/region" instead`,
	"failure-domain.beta.kubernetes.io/zone":        `deprecated since v1.17; use "topology.kubernetes.io/zone" instead`,
	"beta.kubernetes.io/instance-type":              `deprecated since v1.17; use "node.kubernetes.io/instance-type" instead`,
	"app.kubernetes.io/created-by":                  "deprecated since v1.9",
	"scheduler.alpha.kubernetes.io/preferAvoidPods": "deprecated since v1.22; use Taints and Tolerations instead",
	"node-role.kubernetes.io/master":                `use "node-role.kubernetes.io/control-plane" instead`,
}

// runtimeClassWarnings names the deprecated node labels of a runtime
// class's node selector, on create and update alike.
func runtimeClassWarnings(rc *nodev1.RuntimeClass) []string {
	if rc.Scheduling == nil {
		return nil
	}
	var out []string
	for _, k := range sortedKeys(rc.Scheduling.NodeSelector) {
		if msg, ok := deprecatedNodeLabels[k]; ok {
			out = append(out, fmt.Sprintf("%s: %s", field.NewPath("scheduling", "nodeSelector"), msg))
		}
	}
	return out
}

// storageCapacityWarnings names the deprecated node labels of a storage
// capacity's topology selector.
func storageCapacityWarnings(c *storagev1.CSIStorageCapacity) []string {
	return nodeSelectorWarnings(c.NodeTopology, field.NewPath("nodeTopology"))
}

func nodeSelectorWarnings(sel *metav1.LabelSelector, p *field.Path) []string {
	if sel == nil {
		return nil
	}
	var out []string
	for i, e := range sel.MatchExpressions {
		if msg, ok := deprecatedNodeLabels[e.Key]; ok {
			out = append(out, fmt.Sprintf("%s: %s is %s", p.Child("matchExpressions").Index(i).Child("key"), e.Key, msg))
		}
	}
	for _, k := range sortedKeys(sel.MatchLabels) {
		if msg, ok := deprecatedNodeLabels[k]; ok {
			out = append(out, fmt.Sprintf("%s: %s", p.Child("matchLabels").Child(k), msg))
		}
	}
	return out
}

// clusterWarnings dispatches the warnings of this file's kinds.
func clusterWarnings(obj, _ any) ([]string, bool) {
	switch o := obj.(type) {
	case *nodev1.RuntimeClass:
		return runtimeClassWarnings(o), true
	case *storagev1.CSIStorageCapacity:
		return storageCapacityWarnings(o), true
	}
	return nil, false
}

// enforceMountableSecrets is the ServiceAccount annotation that has the
// ServiceAccount admission plugin restrict the secrets pods may use.
const enforceMountableSecrets = "kubernetes.io/enforce-mountable-secrets"

// serviceAccountWarnings warns when a write newly sets the deprecated
// enforce-mountable-secrets annotation, as kube-apiserver does.
func serviceAccountWarnings(sa, old *corev1.ServiceAccount) []string {
	if old != nil {
		if _, had := old.Annotations[enforceMountableSecrets]; had {
			return nil
		}
	}
	if _, ok := sa.Annotations[enforceMountableSecrets]; !ok {
		return nil
	}
	return []string{fmt.Sprintf("metadata.annotations[%s]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets", enforceMountableSecrets)}
}
