package objects

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// decodeCustom reads a custom resource as kube-apiserver stores it (JSON,
// in the storage version) and presents it in res's version, pruned and
// defaulted by that version's schema as on every read.
func decodeCustom(ctx context.Context, res *registry.Resource, kv storage.KeyValue) (runtime.Object, error) {
	obj, err := unmarshalCustom(kv)
	if err != nil {
		return nil, err
	}
	if obj.GroupVersionKind() != res.GVK() {
		if err := res.Custom.Convert(ctx, obj, res.GVR.Version); err != nil {
			// The key as kube-apiserver's storage names it for a get.
			return nil, &undecodable{key: res.BelowRoot(kv.Key), rev: kv.ModRevision, err: err}
		}
	}
	return finishCustom(res, kv, obj)
}

// decodeCustomList is decodeCustom for the values of a list, converted
// in one call of the CRD's conversion webhook. Objects that fail to
// convert fail the list with kube-apiserver's StorageReadError, which
// names each (up to storage.MaxCorruptInList).
func decodeCustomList(ctx context.Context, res *registry.Resource, kvs []storage.KeyValue) ([]runtime.Object, error) {
	objs := make([]*unstructured.Unstructured, len(kvs))
	var convert []*unstructured.Unstructured
	var at []int
	for i, kv := range kvs {
		obj, err := unmarshalCustom(kv)
		if err != nil {
			return nil, err
		}
		objs[i] = obj
		if obj.GroupVersionKind() != res.GVK() {
			convert = append(convert, obj)
			at = append(at, i)
		}
	}
	if len(convert) > 0 {
		if errs := res.Custom.ConvertList(ctx, convert, res.GVR.Version); errs != nil {
			var failed []*undecodable
			for j, err := range errs {
				if err != nil {
					kv := kvs[at[j]]
					failed = append(failed, &undecodable{key: kv.Key, rev: kv.ModRevision, err: err})
				}
			}
			return nil, readError(failed, res)
		}
	}
	out := make([]runtime.Object, len(objs))
	for i, obj := range objs {
		o, err := finishCustom(res, kvs[i], obj)
		if err != nil {
			return nil, err
		}
		out[i] = o
	}
	return out, nil
}

func unmarshalCustom(kv storage.KeyValue) (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(kv.Value); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
	}
	return obj, nil
}

// finishCustom coerces and defaults obj, in res's version, as read.
func finishCustom(res *registry.Resource, kv storage.KeyValue, obj *unstructured.Unstructured) (runtime.Object, error) {
	c := res.Custom
	if err := c.Schema.CoerceStored(obj); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
	}
	c.Schema.Default(obj.Object)
	obj.SetResourceVersion(strconv.FormatInt(kv.ModRevision, 10))
	return obj, nil
}

// encodeCustom serializes a custom resource in the storage version,
// without its resourceVersion.
func encodeCustom(ctx context.Context, res *registry.Resource, obj runtime.Object) ([]byte, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("encoding %s: %T is not unstructured", res.GVR.Resource, obj)
	}
	u = u.DeepCopy()
	u.SetResourceVersion("")
	u.SetGroupVersionKind(res.GVK())
	if c := res.Custom; c.StorageVersion != res.GVR.Version {
		if err := c.Convert(ctx, u, c.StorageVersion); err != nil {
			// kube-apiserver answers a write it cannot convert with the
			// conversion's error alone: 500, no reason.
			return nil, &apierrors.StatusError{ErrStatus: metav1.Status{
				Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error(),
			}}
		}
	}
	data, err := u.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", res.GVR.Resource, err)
	}
	return data, nil
}

// undecodable is kube-apiserver's storage error for a stored object that
// its conversion cannot read: a corrupt object, which only an unsafe
// delete removes.
type undecodable struct {
	key string
	rev int64
	err error
}

func (e *undecodable) Error() string {
	return fmt.Sprintf("StorageError: corrupt object, Code: 7, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=%d: %v", e.key, e.rev, e.err)
}

func (e *undecodable) Unwrap() error { return e.err }

// readError is kube-apiserver's answer to a list that met objects it
// cannot read: 500, reason StorageReadError, one cause per storage key.
func readError(failed []*undecodable, res *registry.Resource) error {
	gr := res.GroupResource()
	tooMany := len(failed) > storage.MaxCorruptInList
	if tooMany {
		failed = failed[:storage.MaxCorruptInList]
	}
	causes := make([]metav1.StatusCause, 0, len(failed)+1)
	for _, e := range failed {
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeUnexpectedServerResponse, Field: e.key, Message: e.Error()})
	}
	if tooMany {
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeTooMany, Message: "too many errors, the list is truncated"})
	}
	msg := fmt.Sprintf("failed to read one or more %s from the storage: %v", gr.String(), failed[0])
	if len(failed) > 1 {
		msg = fmt.Sprintf("%s (and %d more)", msg, len(failed)-1)
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonStoreReadError,
		Message: msg,
		Details: &metav1.StatusDetails{Group: gr.Group, Kind: gr.Resource, Name: "list", Causes: causes},
	}}
}
