package objects

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/storage"
)

// StorageError maps a store error to the API error kube-apiserver
// answers with.
func StorageError(err error, gr schema.GroupResource, name string) error {
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return apierrors.NewNotFound(gr, name)
	case errors.Is(err, storage.ErrKeyExists):
		return apierrors.NewAlreadyExists(gr, name)
	case errors.Is(err, storage.ErrConflict):
		return apierrors.NewConflict(gr, name, errors.New(OptimisticLockMessage))
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

// OptimisticLockMessage is kube-apiserver's text for a stale resourceVersion.
const OptimisticLockMessage = "the object has been modified; please apply your changes to the latest version and try again"
