package resourcequota

import (
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ErrConfig marks a configuration that cannot be used.
var ErrConfig = errors.New("resourcequota: invalid configuration")

// asStatus gives an error that is not an API status the response
// kube-apiserver sends for it: 500, no reason, its text as the message.
// A wrapped status counts as plain, as kube-apiserver does not unwrap.
func asStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonUnknown,
		Message: err.Error(),
	}}
}
