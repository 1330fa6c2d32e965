package noderestriction

import (
	"context"
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/portcullis/portcullis/internal/admission"
)

// podCertRequest is what the rule reads of a PodCertificateRequest.
type podCertRequest struct {
	podName, serviceAccountName, nodeName string
	podUID, serviceAccountUID, nodeUID    types.UID
}

func podCertRequestOf(o any) (podCertRequest, bool) {
	switch r := o.(type) {
	case *certificatesv1.PodCertificateRequest:
		if r != nil {
			s := r.Spec
			return podCertRequest{s.PodName, s.ServiceAccountName, string(s.NodeName), s.PodUID, s.ServiceAccountUID, s.NodeUID}, true
		}
	case *certificatesv1beta1.PodCertificateRequest:
		if r != nil {
			s := r.Spec
			return podCertRequest{s.PodName, s.ServiceAccountName, string(s.NodeName), s.PodUID, s.ServiceAccountUID, s.NodeUID}, true
		}
	}
	return podCertRequest{}, false
}

// admitPodCertificateRequest lets a node request pod certificates only for
// the running, non-mirror pods bound to itself, naming the current UIDs of
// itself, the pod and the pod's service account: the signer trusts these
// fields as the pod's identity.
//
// A UID mismatch or a missing object may be a stale cache on the node's
// side rather than an attack, so, as kube-apiserver does, those are plain
// errors a retry may get past, and only a contradiction is Forbidden.
func (p *Plugin) admitPodCertificateRequest(ctx context.Context, nodeName string, a *admission.Attributes) error {
	if a.Operation != admission.Create {
		return forbidden(a, fmt.Errorf("unexpected operation %s", a.Operation))
	}
	if a.Subresource != "" {
		return forbidden(a, fmt.Errorf("unexpected subresource %s", a.Subresource))
	}
	r, ok := podCertRequestOf(a.Object)
	if !ok {
		return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.Object)))
	}
	podRef := a.Namespace + "/" + r.podName

	if r.nodeName != nodeName {
		return forbidden(a, fmt.Errorf("PodCertificateRequest.Spec.NodeName=%q, which is not the requesting node %q", r.nodeName, nodeName))
	}
	node, err := p.node(ctx, r.nodeName)
	if err != nil {
		return lagOrForbidden(a, err, fmt.Sprintf("while retrieving node %q named in the PodCertificateRequest", r.nodeName))
	}
	if node.UID != r.nodeUID {
		return fmt.Errorf("PodCertificateRequest for pod %q names node UID %q, inconsistent with the running node (%q)", podRef, r.nodeUID, node.UID)
	}

	pod, err := p.pod(ctx, a.Namespace, r.podName)
	if err != nil {
		return lagOrForbidden(a, err, fmt.Sprintf("while retrieving pod %q named in the PodCertificateRequest", podRef))
	}
	if pod.UID != r.podUID {
		return fmt.Errorf("PodCertificateRequest for pod %q contains pod UID (%q) which differs from running pod %q", podRef, r.podUID, pod.UID)
	}
	if pod.Spec.NodeName != r.nodeName {
		return forbidden(a, fmt.Errorf("pod %q is not running on node %q named in the PodCertificateRequest", podRef, r.nodeName))
	}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return forbidden(a, fmt.Errorf("pod %q is a mirror pod", podRef))
	}
	if r.serviceAccountName != pod.Spec.ServiceAccountName {
		// The UIDs match, so this is no stale cache.
		return forbidden(a, fmt.Errorf("PodCertificateRequest for pod %q contains serviceAccountName (%q) that differs from running pod (%q)", podRef, r.serviceAccountName, pod.Spec.ServiceAccountName))
	}

	saRef := a.Namespace + "/" + r.serviceAccountName
	sa, err := p.serviceAccount(ctx, a.Namespace, r.serviceAccountName)
	if err != nil {
		return lagOrForbidden(a, err, fmt.Sprintf("while retrieving service account %q named in the PodCertificateRequest", saRef))
	}
	if sa.UID != r.serviceAccountUID {
		return fmt.Errorf("PodCertificateRequest for pod %q names service account UID %q, which differs from the running service account (%q)", podRef, r.serviceAccountUID, sa.UID)
	}
	return nil
}

// lagOrForbidden reports a failed lookup: a missing object as a plain error
// (wrapping the NotFound) that a retry may get past, anything else as
// Forbidden.
func lagOrForbidden(a *admission.Attributes, err error, what string) error {
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return forbidden(a, fmt.Errorf("%s: %w", what, err))
}
