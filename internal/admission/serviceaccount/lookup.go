package serviceaccount

import (
	"context"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// defaultAttempts is how often storage is asked for the "default"
// account before the pod is refused: the controller creates it just after
// the namespace, and a pod created right away should not lose that race.
const defaultAttempts = 10

// notFoundResource is what kube-apiserver's refusal names: the singular
// "serviceaccount", not the resource.
var notFoundResource = schema.GroupResource{Resource: "serviceaccount"}

// lookup finds the account in the cache, else in storage.
func (p *Plugin) lookup(ctx context.Context, ns, name string) (*corev1.ServiceAccount, error) {
	sa, err := p.cached(ctx, ns, name)
	if err == nil {
		return sa, nil
	}
	if !apierrors.IsNotFound(err) {
		return nil, err
	}
	attempts := 1
	if name == DefaultServiceAccountName {
		attempts = defaultAttempts
	}
	interval := p.interval()
	for i := range attempts {
		if i > 0 {
			if err := p.wait(ctx, interval); err != nil {
				return nil, err
			}
		}
		sa, err := p.live(ctx, ns, name)
		if err == nil {
			return sa, nil
		}
		if !apierrors.IsNotFound(err) {
			return nil, err
		}
	}
	return nil, apierrors.NewNotFound(notFoundResource, name)
}

// unwrappedError is the response kube-apiserver gives for an error that
// is not an API status: 500, no reason, the error's text as the message.
func unwrappedError(err error) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonUnknown,
		Message: err.Error(),
	}}
}
