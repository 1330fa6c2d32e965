package objects

import (
	"context"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// decodeCustom reads a custom resource as kube-apiserver stores it (JSON,
// in the storage version) and presents it in res's version, pruned and
// defaulted by that version's schema as on every read.
func decodeCustom(res *registry.Resource, kv storage.KeyValue) (runtime.Object, error) {
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(kv.Value); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
	}
	c := res.Custom
	if obj.GroupVersionKind() != res.GVK() {
		if err := c.Convert(context.Background(), obj, res.GVR.Version); err != nil {
			return nil, fmt.Errorf("decoding %s: converting to %s: %w", kv.Key, res.GVR.Version, err)
		}
	}
	if err := c.Schema.CoerceStored(obj); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
	}
	c.Schema.Default(obj.Object)
	obj.SetResourceVersion(strconv.FormatInt(kv.ModRevision, 10))
	return obj, nil
}

// encodeCustom serializes a custom resource in the storage version,
// without its resourceVersion.
func encodeCustom(res *registry.Resource, obj runtime.Object) ([]byte, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("encoding %s: %T is not unstructured", res.GVR.Resource, obj)
	}
	u = u.DeepCopy()
	u.SetResourceVersion("")
	u.SetGroupVersionKind(res.GVK())
	if c := res.Custom; c.StorageVersion != res.GVR.Version {
		if err := c.Convert(context.Background(), u, c.StorageVersion); err != nil {
			return nil, fmt.Errorf("encoding %s: converting to %s: %w", res.GVR.Resource, c.StorageVersion, err)
		}
	}
	data, err := u.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", res.GVR.Resource, err)
	}
	return data, nil
}
