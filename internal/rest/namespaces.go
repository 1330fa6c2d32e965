package rest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// SystemNamespaces exist in every cluster.
var SystemNamespaces = []string{"default", "kube-system", "kube-public", "kube-node-lease"}

func (h *Handler) namespaces() *registry.Resource {
	res, _ := h.reg.Lookup(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"})
	return res
}

// Bootstrap creates the system namespaces that do not exist yet.
func (h *Handler) Bootstrap(ctx context.Context) error {
	res := h.namespaces()
	for _, name := range SystemNamespaces {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{corev1.LabelMetadataName: name}}}
		_, err := h.createObject(ctx, res, ns, nil, writeOptions{FieldManager: "portcullis"}, nil)
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating namespace %s: %w", name, err)
		}
	}
	return nil
}

// RunNamespaceController finalizes terminating namespaces: it deletes
// everything in them, then removes the "kubernetes" finalizer and the
// namespace itself. It blocks until ctx is done.
func (h *Handler) RunNamespaceController(ctx context.Context, log *slog.Logger) {
	res := h.namespaces()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	var events <-chan storage.Event
	for {
		if events == nil {
			ch, err := h.store.Watch(ctx, res.KeyPrefix(), 0)
			if err == nil {
				events = ch
			}
		}
		h.finalizeNamespaces(ctx, log)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		case _, ok := <-events:
			if !ok {
				events = nil
			}
		}
	}
}

func (h *Handler) finalizeNamespaces(ctx context.Context, log *slog.Logger) {
	res := h.namespaces()
	out, err := h.store.List(ctx, res.KeyPrefix(), storage.ListOptions{})
	if err != nil {
		return
	}
	for _, kv := range out.KVs {
		obj, err := h.decodeStored(res, kv)
		if err != nil {
			continue
		}
		ns := obj.(*corev1.Namespace)
		if ns.DeletionTimestamp == nil {
			continue
		}
		if err := h.finalizeNamespace(ctx, ns.Name); err != nil && !errors.Is(err, errContentRemains) && ctx.Err() == nil {
			log.Warn("finalizing namespace", "namespace", ns.Name, "err", err)
		}
	}
}

var errContentRemains = errors.New("namespace still has content")

func (h *Handler) finalizeNamespace(ctx context.Context, name string) error {
	remaining := 0
	gone := &metav1.DeleteOptions{}
	for _, res := range h.reg.All() {
		if !res.Namespaced {
			continue
		}
		out, err := h.store.List(ctx, res.NamespacePrefix(name), storage.ListOptions{})
		if err != nil {
			return err
		}
		for _, kv := range out.KVs {
			remaining++
			obj, err := h.decodeStored(res, kv)
			if err != nil {
				return err
			}
			m, _ := meta.Accessor(obj)
			if m.GetDeletionTimestamp() != nil {
				continue
			}
			if _, _, err := h.deleteObject(ctx, res, name, m.GetName(), gone); err != nil && !apierrors.IsNotFound(err) {
				return err
			}
		}
	}
	if remaining > 0 {
		return errContentRemains
	}
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
	}, writeOptions{FieldManager: "portcullis-namespace-controller"}, nil, false)
	if err != nil {
		return err
	}
	// With no finalizers left at all, the namespace goes.
	kv, err := h.store.Get(ctx, res.Key("", name))
	if err != nil {
		return nil
	}
	obj, err := h.decodeStored(res, kv)
	if err != nil {
		return err
	}
	ns := obj.(*corev1.Namespace)
	if len(ns.Spec.Finalizers) == 0 && len(ns.Finalizers) == 0 {
		_, _, err = h.store.Delete(ctx, kv.Key, kv.ModRevision)
		if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrConflict) {
			return nil
		}
	}
	return err
}
