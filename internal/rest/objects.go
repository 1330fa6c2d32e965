package rest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// decodeStored turns a stored value into a typed object whose
// resourceVersion is the value's revision.
func (h *Handler) decodeStored(res *registry.Resource, kv storage.KeyValue) (runtime.Object, error) {
	obj := res.New()
	if _, _, err := h.c.proto.Decode(kv.Value, nil, obj); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", kv.Key, err)
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	m.SetResourceVersion(strconv.FormatInt(kv.ModRevision, 10))
	obj.GetObjectKind().SetGroupVersionKind(res.GVK())
	return obj, nil
}

// encodeStored serializes obj for the store, without its resourceVersion
// (the store's revision is the resourceVersion; keeping it inside the value
// too would only let the two disagree).
func (h *Handler) encodeStored(res *registry.Resource, obj runtime.Object) ([]byte, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	rv := m.GetResourceVersion()
	m.SetResourceVersion("")
	defer m.SetResourceVersion(rv)
	obj.GetObjectKind().SetGroupVersionKind(res.GVK())
	var buf bytes.Buffer
	if err := h.c.proto.Encode(obj, &buf); err != nil {
		return nil, fmt.Errorf("encoding %s: %w", res.GVR.Resource, err)
	}
	return buf.Bytes(), nil
}

// getObject reads one object.
func (h *Handler) getObject(ctx context.Context, res *registry.Resource, ns, name string) (runtime.Object, int64, error) {
	kv, err := h.store.Get(ctx, res.Key(ns, name))
	if err != nil {
		return nil, 0, storageError(err, res.GroupResource(), name)
	}
	obj, err := h.decodeStored(res, kv)
	return obj, kv.ModRevision, err
}

// setRV records a new revision on obj.
func setRV(obj runtime.Object, rev int64) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetResourceVersion(strconv.FormatInt(rev, 10))
	}
}

// storageError maps store errors to the API errors kube-apiserver returns.
func storageError(err error, gr schema.GroupResource, name string) error {
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return apierrors.NewNotFound(gr, name)
	case errors.Is(err, storage.ErrKeyExists):
		return apierrors.NewAlreadyExists(gr, name)
	case errors.Is(err, storage.ErrConflict):
		return apierrors.NewConflict(gr, name, errors.New(optimisticLockMsg))
	case errors.Is(err, storage.ErrCompacted):
		return apierrors.NewResourceExpired("The resourceVersion for the provided list is too old.")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return apierrors.NewTimeoutError(fmt.Sprintf("request did not complete: %v", err), 0)
	}
	var corrupt *storage.CorruptListError
	if errors.As(err, &corrupt) {
		return storeReadError(corrupt, gr)
	}
	return apierrors.NewInternalError(err)
}

// storeReadError is kube-apiserver's answer to a list that met objects it
// cannot read: 500, reason StorageReadError, one cause per storage key.
func storeReadError(e *storage.CorruptListError, gr schema.GroupResource) error {
	causes := make([]metav1.StatusCause, 0, len(e.Errs)+1)
	for _, c := range e.Errs {
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeUnexpectedServerResponse, Field: c.Key, Message: c.Error()})
	}
	if e.TooMany {
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeTooMany, Message: "too many errors, the list is truncated"})
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonStoreReadError,
		Message: fmt.Sprintf("failed to read one or more %s from the storage: %v", gr.String(), e),
		Details: &metav1.StatusDetails{Group: gr.Group, Kind: gr.Resource, Name: "list", Causes: causes},
	}}
}

// optimisticLockMsg is kube-apiserver's text for a stale resourceVersion.
const optimisticLockMsg = "the object has been modified; please apply your changes to the latest version and try again"
