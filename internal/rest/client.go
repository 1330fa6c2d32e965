package rest

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The in-process client: the server's own writes (controllers, the
// bootstrap of system namespaces and RBAC) go through the same write path
// as a client's (defaults, admission, validation, field managers). Reads
// need none of that and are objects.Objects'.

// Apply creates obj, or replaces the stored object of the same name. The
// object's resourceVersion, when set, guards the write.
func (h *Handler) Apply(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	res, err := h.o.ResourceOf(obj)
	if err != nil {
		return nil, err
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	opts := writeOptions{FieldManager: manager}
	if m.GetResourceVersion() == "" {
		return h.createObject(ctx, res, obj, nil, opts, nil)
	}
	out, _, err := h.updateObject(ctx, target{res: res, ns: m.GetNamespace(), name: m.GetName()},
		func(runtime.Object) (runtime.Object, error) { return obj, nil }, opts, nil, false)
	return out, err
}

// Create creates obj.
func (h *Handler) Create(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	res, err := h.o.ResourceOf(obj)
	if err != nil {
		return nil, err
	}
	return h.createObject(ctx, res, obj, nil, writeOptions{FieldManager: manager}, nil)
}

// ApplyStatus replaces the status of the stored object named by obj with
// obj's status, guarded by obj's resourceVersion when it has one.
func (h *Handler) ApplyStatus(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	res, err := h.o.ResourceOf(obj)
	if err != nil {
		return nil, err
	}
	if !res.Status {
		return nil, fmt.Errorf("no status subresource serves %s", res.GVK())
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	out, _, err := h.updateObject(ctx, target{res: res, ns: m.GetNamespace(), name: m.GetName(), sub: "status"},
		func(runtime.Object) (runtime.Object, error) { return obj, nil }, writeOptions{FieldManager: manager}, nil, false)
	return out, err
}

// Remove deletes an object as a client's DELETE with default options
// does: finalizers and grace periods hold it back.
func (h *Handler) Remove(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) error {
	res, ok := h.reg.Lookup(gvr)
	if !ok {
		return fmt.Errorf("no resource %s", gvr)
	}
	_, _, err := h.deleteObject(ctx, res, ns, name, &metav1.DeleteOptions{})
	return err
}

// FinalizeNamespace ends the deletion of an emptied namespace: it removes
// the "kubernetes" finalizer through namespaces/finalize and, when no
// finalizer is left, the namespace itself, as kube-apiserver's namespace
// storage does.
func (h *Handler) FinalizeNamespace(ctx context.Context, name string, manager string) error {
	res := h.namespaces()
	_, _, err := h.updateObject(ctx, target{res: res, name: name, sub: "finalize"}, func(cur runtime.Object) (runtime.Object, error) {
		ns := cur.(*corev1.Namespace)
		var keep []corev1.FinalizerName
		for _, f := range ns.Spec.Finalizers {
			if f != corev1.FinalizerKubernetes {
				keep = append(keep, f)
			}
		}
		ns.Spec.Finalizers = keep
		return ns, nil
	}, writeOptions{FieldManager: manager}, nil, false)
	if err != nil {
		return err
	}
	return h.removeFinalizedNamespace(ctx, res, name)
}
