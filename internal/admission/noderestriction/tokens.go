package noderestriction

import (
	"context"
	"errors"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/portcullis/portcullis/internal/admission"
)

// admitServiceAccount lets a node request service account tokens only
// bound to a pod scheduled on itself, so that a token dies with the pod
// (and kube-apiserver infers the node binding from the pod's), and, with
// the audience restriction, only for an audience that pod needs.
func (p *Plugin) admitServiceAccount(ctx context.Context, nodeName string, a *admission.Attributes) error {
	if a.Operation != admission.Create || a.Subresource != "token" {
		return nil
	}
	tr, ok := as[authenticationv1.TokenRequest](a.Object)
	if !ok {
		return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.Object)))
	}
	ref := tr.Spec.BoundObjectRef
	if ref == nil || ref.APIVersion != "v1" || ref.Kind != "Pod" || ref.Name == "" {
		return forbidden(a, errors.New("node requested token not bound to a pod"))
	}
	if ref.UID == "" {
		return forbidden(a, errors.New("node requested token with a pod binding without a uid"))
	}
	pod, err := p.pod(ctx, a.Namespace, ref.Name)
	if apierrors.IsNotFound(err) {
		return err
	}
	if err != nil {
		return forbidden(a, err)
	}
	if ref.UID != pod.UID {
		return forbidden(a, fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
	}
	if pod.Spec.NodeName != nodeName {
		return forbidden(a, errors.New("node requested token bound to a pod scheduled on a different node"))
	}
	if p.opts.DisableAudienceRestriction {
		return nil
	}
	return p.checkAudience(ctx, a, tr, pod)
}
