package rest

import (
	"context"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// ConnectorKey names a connector subresource.
type ConnectorKey struct {
	Resource    schema.GroupVersionResource
	Subresource string
}

// ConnectorFunc answers a POST to a connector subresource of the object
// namespace/name with the decoded body.
type ConnectorFunc func(ctx context.Context, namespace, name string, body runtime.Object, dryRun bool) (runtime.Object, error)

// connectorName returns sub when res has a connector of that name, and
// something no subresource equals otherwise.
func connectorName(res *registry.Resource, sub string) string {
	for _, c := range res.Connectors {
		if c.Name == sub {
			return sub
		}
	}
	return "\x00"
}

func (h *Handler) connect(w http.ResponseWriter, r *http.Request, t target) {
	var conn registry.Connector
	for _, c := range t.res.Connectors {
		if c.Name == t.sub {
			conn = c
		}
	}
	fn := h.cfg.Connectors[ConnectorKey{t.res.GVR, t.sub}]
	if fn == nil {
		h.notFound(w, r)
		return
	}
	opts, _, err := parseWriteOptions(r, false)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	body, err := h.readBody(r)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	dec, err := h.c.decoderFor(r.Header.Get("Content-Type"), false)
	if err != nil {
		h.rs.Error(w, r, unsupportedMediaType(r.Header.Get("Content-Type")))
		return
	}
	in := conn.New()
	if _, _, err := dec.Decode(body, &conn.Kind, in); err != nil {
		h.rs.Error(w, r, apierrors.NewBadRequest(fmt.Sprintf("error decoding %s: %v", conn.Kind.Kind, err)))
		return
	}
	out, err := fn(r.Context(), t.ns, t.name, in, opts.DryRun)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	out.GetObjectKind().SetGroupVersionKind(conn.Kind)
	h.rs.Object(w, r, http.StatusCreated, out)
}

// Get reads one object of a served resource, for in-process consumers.
func (h *Handler) Get(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) (runtime.Object, error) {
	res, ok := h.reg.Lookup(gvr)
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	obj, _, err := h.getObject(ctx, res, ns, name)
	return obj, err
}

// DecodeStored decodes a stored value of res, for informers.
func (h *Handler) DecodeStored(res *registry.Resource, kv storage.KeyValue) (runtime.Object, error) {
	return h.decodeStored(res, kv)
}

// Apply creates obj, or replaces the stored object of the same name,
// through the full write path (defaults, admission, validation). It is
// how the server reconciles the objects it owns, such as the bootstrap
// RBAC policy. The stored object's resourceVersion guards the write.
func (h *Handler) Apply(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	gvks, _, err := h.c.scheme.ObjectKinds(obj)
	if err != nil {
		return nil, err
	}
	res, ok := h.reg.ForKind(gvks[0])
	if !ok {
		return nil, fmt.Errorf("no resource serves %s", gvks[0])
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

// Remove deletes an object the server owns.
func (h *Handler) Remove(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) error {
	res, ok := h.reg.Lookup(gvr)
	if !ok {
		return fmt.Errorf("no resource %s", gvr)
	}
	_, _, err := h.deleteObject(ctx, res, ns, name, &metav1.DeleteOptions{})
	return err
}

// ForKind finds the resource serving a kind.
func (h *Handler) ForKind(gvk schema.GroupVersionKind) (*registry.Resource, bool) {
	return h.reg.ForKind(gvk)
}

// List returns the objects of a resource in namespace (every namespace when
// empty) whose labels match selector, for in-process consumers.
func (h *Handler) List(ctx context.Context, gvr schema.GroupVersionResource, ns string, selector labels.Selector) ([]runtime.Object, error) {
	res, ok := h.reg.Lookup(gvr)
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), "")
	}
	list, err := h.listObjects(ctx, res, ns, &metav1.ListOptions{LabelSelector: selector.String()})
	if err != nil {
		return nil, err
	}
	return meta.ExtractList(list)
}

// ApplyStatus replaces the status of the stored object named by obj with
// obj's status, guarded by obj's resourceVersion when it has one.
func (h *Handler) ApplyStatus(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	gvks, _, err := h.c.scheme.ObjectKinds(obj)
	if err != nil {
		return nil, err
	}
	res, ok := h.reg.ForKind(gvks[0])
	if !ok || !res.Status {
		return nil, fmt.Errorf("no status subresource serves %s", gvks[0])
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	out, _, err := h.updateObject(ctx, target{res: res, ns: m.GetNamespace(), name: m.GetName(), sub: "status"},
		func(runtime.Object) (runtime.Object, error) { return obj, nil }, writeOptions{FieldManager: manager}, nil, false)
	return out, err
}
