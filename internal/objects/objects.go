package objects

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"

	"github.com/portcullis/portcullis/internal/defaults"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// Objects reads typed objects of the served resources from a store.
type Objects struct {
	reg    *registry.Registry
	scheme *runtime.Scheme
	store  storage.Store
	proto  *protobuf.Serializer
}

// New returns the object layer over store.
func New(reg *registry.Registry, scheme *runtime.Scheme, store storage.Store) *Objects {
	return &Objects{reg: reg, scheme: scheme, store: store, proto: protobuf.NewSerializer(scheme, scheme)}
}

// Registry returns the served resources.
func (o *Objects) Registry() *registry.Registry { return o.reg }

// Scheme returns the scheme of the served types.
func (o *Objects) Scheme() *runtime.Scheme { return o.scheme }

// Store returns the store the objects live in.
func (o *Objects) Store() storage.Store { return o.store }

// Lookup finds a served resource.
func (o *Objects) Lookup(gvr schema.GroupVersionResource) (*registry.Resource, bool) {
	return o.reg.Lookup(gvr)
}

// ForKind finds the resource serving a kind.
func (o *Objects) ForKind(gvk schema.GroupVersionKind) (*registry.Resource, bool) {
	return o.reg.ForKind(gvk)
}

// ResourceOf finds the resource of a typed object by its Go type.
func (o *Objects) ResourceOf(obj runtime.Object) (*registry.Resource, error) {
	gvks, _, err := o.scheme.ObjectKinds(obj)
	if err != nil {
		return nil, err
	}
	res, ok := o.reg.ForKind(gvks[0])
	if !ok {
		return nil, fmt.Errorf("no resource serves %s", gvks[0])
	}
	return res, nil
}

// Decode turns a stored value into a typed object whose resourceVersion
// is the value's revision.
func (o *Objects) Decode(res *registry.Resource, kv storage.KeyValue) (runtime.Object, error) {
	return o.DecodeContext(context.Background(), res, kv)
}

// DecodeContext is Decode within ctx, which bounds the conversion of a
// custom resource by its CRD's webhook.
func (o *Objects) DecodeContext(ctx context.Context, res *registry.Resource, kv storage.KeyValue) (runtime.Object, error) {
	if res.Custom != nil {
		return decodeCustom(ctx, res, kv)
	}
	stored := res
	if res.StoredAs != nil {
		stored = res.StoredAs.Resource
	}
	obj, err := o.decodeStored(stored, kv.Value)
	if err != nil {
		return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
	}
	// As kube-apiserver's storage codec, in the stored kind.
	defaults.OnRead(obj)
	if res.StoredAs != nil {
		if obj, err = res.StoredAs.FromStored(obj); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
		}
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	m.SetResourceVersion(strconv.FormatInt(kv.ModRevision, 10))
	obj.GetObjectKind().SetGroupVersionKind(res.GVK())
	return obj, nil
}

// DecodeList decodes the values of a list within ctx: Decode for each,
// but the custom resources that need it are converted in one call of
// their CRD's conversion webhook, and those it fails to convert fail the
// list with an API error (StorageReadError) naming each.
func (o *Objects) DecodeList(ctx context.Context, res *registry.Resource, kvs []storage.KeyValue) ([]runtime.Object, error) {
	if res.Custom != nil {
		return decodeCustomList(ctx, res, kvs)
	}
	out := make([]runtime.Object, len(kvs))
	for i, kv := range kvs {
		obj, err := o.DecodeContext(ctx, res, kv)
		if err != nil {
			return nil, err
		}
		out[i] = obj
	}
	return out, nil
}

// Encode serializes obj for the store, without its resourceVersion.
func (o *Objects) Encode(res *registry.Resource, obj runtime.Object) ([]byte, error) {
	return o.EncodeContext(context.Background(), res, obj)
}

// EncodeContext is Encode within ctx, which bounds the conversion of a
// custom resource by its CRD's webhook. A custom resource that does not
// convert fails with an API error, as in kube-apiserver.
func (o *Objects) EncodeContext(ctx context.Context, res *registry.Resource, obj runtime.Object) ([]byte, error) {
	if res.Custom != nil {
		return encodeCustom(ctx, res, obj)
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	rv := m.GetResourceVersion()
	m.SetResourceVersion("")
	defer m.SetResourceVersion(rv)
	obj.GetObjectKind().SetGroupVersionKind(res.GVK())
	if res.StoredAs != nil {
		if obj, err = res.StoredAs.ToStored(obj); err != nil {
			return nil, fmt.Errorf("encoding %s: %w", res.GVR.Resource, err)
		}
		obj.GetObjectKind().SetGroupVersionKind(res.StoredAs.Resource.GVK())
	}
	var buf bytes.Buffer
	if err := o.proto.Encode(obj, &buf); err != nil {
		return nil, fmt.Errorf("encoding %s: %w", res.GVR.Resource, err)
	}
	return buf.Bytes(), nil
}

// Read reads one object of res and its revision.
func (o *Objects) Read(ctx context.Context, res *registry.Resource, ns, name string) (runtime.Object, int64, error) {
	kv, err := o.store.Get(ctx, res.Key(ns, name))
	if err != nil {
		return nil, 0, StorageError(err, res.GroupResource(), name)
	}
	obj, err := o.DecodeContext(ctx, res, kv)
	return obj, kv.ModRevision, err
}

// Get reads one object of a served resource.
func (o *Objects) Get(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) (runtime.Object, error) {
	res, ok := o.reg.Lookup(gvr)
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	obj, _, err := o.Read(ctx, res, ns, name)
	return obj, err
}

// List returns the objects of a resource in namespace ns (every namespace
// when empty) whose labels match selector (nil: every object).
func (o *Objects) List(ctx context.Context, gvr schema.GroupVersionResource, ns string, selector labels.Selector) ([]runtime.Object, error) {
	res, ok := o.reg.Lookup(gvr)
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), "")
	}
	prefix := res.KeyPrefix()
	if res.Namespaced && ns != "" {
		prefix = res.NamespacePrefix(ns)
	}
	out, err := o.store.List(ctx, prefix, storage.ListOptions{})
	if err != nil {
		return nil, StorageError(err, res.GroupResource(), "")
	}
	decoded, err := o.DecodeList(ctx, res, out.KVs)
	if _, ok := err.(apierrors.APIStatus); ok {
		return nil, err
	} else if err != nil {
		return nil, StorageError(err, res.GroupResource(), "")
	}
	objs := make([]runtime.Object, 0, len(decoded))
	for _, obj := range decoded {
		if selector != nil && !selector.Empty() {
			m, _ := meta.Accessor(obj)
			if !selector.Matches(labels.Set(m.GetLabels())) {
				continue
			}
		}
		objs = append(objs, obj)
	}
	return objs, nil
}

// KindsFor maps a served resource to its kind, as a RESTMapper does (for
// the type checking of admission policies).
func (o *Objects) KindsFor(gvr schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	res, ok := o.reg.Lookup(gvr)
	if !ok {
		return nil, fmt.Errorf("resource %s is not served", gvr)
	}
	return []schema.GroupVersionKind{res.GVK()}, nil
}
