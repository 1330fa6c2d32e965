package noderestriction

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/admission"
)

// admitClaimStatus lets a node change, in a claim's status, only what the
// kubelet reports after expanding a volume: capacity, conditions and the
// resize fields (RecoverVolumeExpansionFailure, on in every supported
// kube-apiserver). Metadata is protected too: a node must not relabel a
// claim or add finalizers or owners.
func admitClaimStatus(nodeName string, a *admission.Attributes) error {
	if a.Operation != admission.Update {
		return forbidden(a, fmt.Errorf("unexpected operation %q", a.Operation))
	}
	old, ok := as[corev1.PersistentVolumeClaim](a.OldObject)
	if !ok {
		return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.OldObject)))
	}
	claim, ok := as[corev1.PersistentVolumeClaim](a.Object)
	if !ok {
		return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.Object)))
	}
	old, claim = comparableClaim(old), comparableClaim(claim)
	if apiequality.Semantic.DeepEqual(old, claim) {
		return nil
	}
	// kube-apiserver's words ("quantity" included); it appends a
	// cmp.Diff, whose layout is deliberately unstable, where this lists
	// the paths that differ.
	return forbidden(a, fmt.Errorf("node %q is not allowed to update fields other than status.quantity and status.conditions: %v", nodeName, changedPaths(old, claim)))
}

// comparableClaim is a copy of c without what a node may change, nor the
// resourceVersion (empty in an unconditional update) and managed fields.
func comparableClaim(c *corev1.PersistentVolumeClaim) *corev1.PersistentVolumeClaim {
	c = c.DeepCopy()
	c.ResourceVersion = ""
	c.ManagedFields = nil
	c.Status.Capacity = nil
	c.Status.Conditions = nil
	c.Status.AllocatedResources = nil
	c.Status.AllocatedResourceStatuses = nil
	return c
}

// changedPaths lists, sorted, the JSON paths where x and y differ.
func changedPaths(x, y runtime.Object) []string {
	ux, errX := runtime.DefaultUnstructuredConverter.ToUnstructured(x)
	uy, errY := runtime.DefaultUnstructuredConverter.ToUnstructured(y)
	if errX != nil || errY != nil {
		return []string{"<unknown>"}
	}
	var paths []string
	diffValues("", ux, uy, &paths)
	if len(paths) == 0 {
		// Semantically different but equal in JSON cannot happen for
		// claims; say so rather than print nothing.
		paths = []string{"<unknown>"}
	}
	slices.Sort(paths)
	return paths
}

func diffValues(path string, x, y any, paths *[]string) {
	mx, okX := x.(map[string]any)
	my, okY := y.(map[string]any)
	if okX && okY {
		for k, v := range mx {
			diffValues(join(path, k), v, my[k], paths)
		}
		for k, v := range my {
			if _, ok := mx[k]; !ok {
				diffValues(join(path, k), nil, v, paths)
			}
		}
		return
	}
	lx, okX := x.([]any)
	ly, okY := y.([]any)
	if okX && okY && len(lx) == len(ly) {
		for i := range lx {
			diffValues(path+"["+strconv.Itoa(i)+"]", lx[i], ly[i], paths)
		}
		return
	}
	if !reflect.DeepEqual(x, y) {
		*paths = append(*paths, path)
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
