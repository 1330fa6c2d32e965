package rest

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

var errUnsupportedMediaType = errors.New("unsupported media type")

// codecError is the API error of a failed decode or encode of a stored
// object: the object layer's own API error (a custom resource its
// conversion webhook fails, in kube-apiserver's words), an internal
// error otherwise.
func codecError(err error) error {
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	return apierrors.NewInternalError(err)
}
