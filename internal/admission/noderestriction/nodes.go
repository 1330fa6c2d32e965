package noderestriction

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/portcullis/portcullis/internal/admission"
)

// admitNode lets a node write only its own Node (and its status), without
// steering workloads to itself: no configSource (which would widen what the
// node authorizer lets it read), no change of taints or ownerReferences
// (through which the garbage collector could delete and let it recreate
// the Node), no reserved labels.
func admitNode(nodeName string, a *admission.Attributes) error {
	requested := a.Name
	if requested == "" && a.Operation == admission.Create {
		// kube-apiserver fills the name of a create from the object.
		requested, _ = objectNameOf(a.Object)
	}
	if requested != nodeName {
		return forbidden(a, fmt.Errorf("node %q is not allowed to modify node %q", nodeName, requested))
	}

	switch a.Operation {
	case admission.Create:
		node, ok := as[corev1.Node](a.Object)
		if !ok {
			return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.Object)))
		}
		if node.Spec.ConfigSource != nil {
			// kube-apiserver's words, "pods" included.
			return forbidden(a, fmt.Errorf("node %q is not allowed to create pods with a non-nil configSource", nodeName))
		}
		if bad := forbiddenLabels(modifiedLabels(node.Labels, nil)); len(bad) > 0 {
			return forbidden(a, fmt.Errorf("node %q is not allowed to set the following labels: %s", nodeName, strings.Join(bad, ", ")))
		}
	case admission.Update:
		node, ok := as[corev1.Node](a.Object)
		if !ok {
			return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.Object)))
		}
		old, ok := as[corev1.Node](a.OldObject)
		if !ok {
			return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.OldObject)))
		}
		// Only a new non-nil configSource is refused: old kubelets drop the
		// field on status updates.
		if node.Spec.ConfigSource != nil && !apiequality.Semantic.DeepEqual(node.Spec.ConfigSource, old.Spec.ConfigSource) {
			return forbidden(a, fmt.Errorf("node %q is not allowed to update configSource to a new non-nil configSource", nodeName))
		}
		if !apiequality.Semantic.DeepEqual(node.Spec.Taints, old.Spec.Taints) {
			return forbidden(a, fmt.Errorf("node %q is not allowed to modify taints", nodeName))
		}
		if !apiequality.Semantic.DeepEqual(node.OwnerReferences, old.OwnerReferences) {
			return forbidden(a, fmt.Errorf("node %q is not allowed to modify ownerReferences", nodeName))
		}
		if bad := forbiddenLabels(modifiedLabels(node.Labels, old.Labels)); len(bad) > 0 {
			// kube-apiserver's words, without the node's name.
			return forbidden(a, fmt.Errorf("is not allowed to modify labels: %s", strings.Join(bad, ", ")))
		}
	}
	return nil
}
