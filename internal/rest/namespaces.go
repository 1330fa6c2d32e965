package rest

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

func (h *Handler) namespaces() *registry.Resource {
	res, _ := h.reg.Lookup(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
	return res
}

// removeFinalizedNamespace deletes a terminating namespace that no
// finalizer holds any more. A namespace that is gone already, or changed
// meanwhile, is left to the next pass of the namespace controller.
func (h *Handler) removeFinalizedNamespace(ctx context.Context, res *registry.Resource, name string) error {
	kv, err := h.store.Get(ctx, res.Key("", name))
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	obj, err := h.o.Decode(res, kv)
	if err != nil {
		return err
	}
	ns := obj.(*corev1.Namespace)
	if ns.DeletionTimestamp == nil || len(ns.Spec.Finalizers) > 0 || len(ns.Finalizers) > 0 {
		return nil
	}
	_, _, err = h.store.Delete(ctx, kv.Key, kv.ModRevision)
	if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrConflict) {
		return nil
	}
	return err
}
