package noderestriction

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/portcullis/portcullis/internal/admission"
)

// admitPod lets a node create its own mirror pods and delete pods bound to
// itself; it may update pods only through pods/status.
func (p *Plugin) admitPod(ctx context.Context, nodeName string, a *admission.Attributes) error {
	switch a.Operation {
	case admission.Create:
		return p.admitMirrorPod(ctx, nodeName, a)
	case admission.Delete:
		// The stored pod decides, whatever the request carries.
		pod, err := p.pod(ctx, a.Namespace, a.Name)
		if apierrors.IsNotFound(err) {
			return err
		}
		if err != nil {
			return forbidden(a, err)
		}
		if pod.Spec.NodeName != nodeName {
			return forbidden(a, fmt.Errorf("node %q can only delete pods with spec.nodeName set to itself", nodeName))
		}
		return nil
	default:
		return forbidden(a, fmt.Errorf("unexpected operation %q, node %q can only create and delete mirror pods", a.Operation, nodeName))
	}
}

// admitMirrorPod lets a node create only a mirror pod bound to itself,
// owned by its own Node, that references no other API object: a node must
// not reach, through a pod it makes up, anything the node authorizer would
// then grant it.
func (p *Plugin) admitMirrorPod(ctx context.Context, nodeName string, a *admission.Attributes) error {
	pod, ok := as[corev1.Pod](a.Object)
	if !ok {
		return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.Object)))
	}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; !mirror {
		return forbidden(a, fmt.Errorf("pod does not have %q annotation, node %q can only create mirror pods", corev1.MirrorPodAnnotationKey, nodeName))
	}
	if pod.Spec.NodeName != nodeName {
		return forbidden(a, fmt.Errorf("node %q can only create pods with spec.nodeName set to itself", nodeName))
	}
	if err := p.checkMirrorOwner(ctx, nodeName, pod, a); err != nil {
		return err
	}
	refs, resource, err := apiObjectReference(pod)
	if err != nil {
		return forbidden(a, err)
	}
	if refs {
		return forbidden(a, fmt.Errorf("node %q can not create pods that reference %s", nodeName, resource))
	}
	return nil
}

// checkMirrorOwner requires exactly one owner reference: the node itself,
// as controller, not blocking its owner's deletion, with the node's UID.
func (p *Plugin) checkMirrorOwner(ctx context.Context, nodeName string, pod *corev1.Pod, a *admission.Attributes) error {
	switch len(pod.OwnerReferences) {
	case 0:
		return forbidden(a, fmt.Errorf("node %q can only create pods with an owner reference set to itself", nodeName))
	case 1:
	default:
		return forbidden(a, fmt.Errorf("node %q can only create pods with a single owner reference set to itself", nodeName))
	}
	owner := pod.OwnerReferences[0]
	if owner.APIVersion != corev1.SchemeGroupVersion.String() || owner.Kind != "Node" || owner.Name != nodeName {
		return forbidden(a, fmt.Errorf("node %q can only create pods with an owner reference set to itself", nodeName))
	}
	if owner.Controller == nil || !*owner.Controller {
		return forbidden(a, fmt.Errorf("node %q can only create pods with a controller owner reference set to itself", nodeName))
	}
	if owner.BlockOwnerDeletion != nil && *owner.BlockOwnerDeletion {
		return forbidden(a, fmt.Errorf("node %q must not set blockOwnerDeletion on an owner reference", nodeName))
	}
	node, err := p.node(ctx, nodeName)
	if apierrors.IsNotFound(err) {
		return err
	}
	if err != nil {
		return forbidden(a, fmt.Errorf("error looking up node %s to verify uid: %w", nodeName, err))
	}
	if owner.UID != node.UID {
		// kube-apiserver's words, "expected" naming the reference's UID.
		return forbidden(a, fmt.Errorf("node %s UID mismatch: expected %s got %s", nodeName, owner.UID, node.UID))
	}
	return nil
}

// admitPodStatus lets a node update the status of pods bound to itself,
// but not their labels (a status update can carry them) nor the claim
// statuses the scheduler and controllers own.
func admitPodStatus(nodeName string, a *admission.Attributes) error {
	if a.Operation != admission.Update {
		return forbidden(a, fmt.Errorf("unexpected operation %q", a.Operation))
	}
	old, ok := as[corev1.Pod](a.OldObject)
	if !ok {
		return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.OldObject)))
	}
	if old.Spec.NodeName != nodeName {
		return forbidden(a, fmt.Errorf("node %q can only update pod status for pods with spec.nodeName set to itself", nodeName))
	}
	pod, ok := as[corev1.Pod](a.Object)
	if !ok {
		return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.Object)))
	}
	switch {
	case !labels.Equals(old.Labels, pod.Labels):
		return forbidden(a, fmt.Errorf("node %q cannot update labels through pod status", nodeName))
	case !claimStatusesEqual(old.Status.ResourceClaimStatuses, pod.Status.ResourceClaimStatuses):
		// kube-apiserver's spelling.
		return forbidden(a, fmt.Errorf("node %q cannot update resource claim statues", nodeName))
	case !apiequality.Semantic.DeepEqual(old.Status.ExtendedResourceClaimStatus, pod.Status.ExtendedResourceClaimStatus):
		return forbidden(a, fmt.Errorf("node %q cannot update extended resource claim status", nodeName))
	case !apiequality.Semantic.DeepEqual(old.Status.NodeAllocatableResourceClaimStatuses, pod.Status.NodeAllocatableResourceClaimStatuses):
		return forbidden(a, fmt.Errorf("node %q cannot update node allocatable resource claim statuses", nodeName))
	}
	return nil
}

// claimStatusesEqual compares the claim each status entry names; entries
// are usually added once, but nothing guarantees they stay unchanged.
func claimStatusesEqual(x, y []corev1.PodResourceClaimStatus) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if x[i].Name != y[i].Name {
			return false
		}
		a, b := x[i].ResourceClaimName, y[i].ResourceClaimName
		if (a == nil) != (b == nil) || (a != nil && *a != *b) {
			return false
		}
	}
	return true
}

// admitEviction lets a node evict only pods bound to itself.
func (p *Plugin) admitEviction(ctx context.Context, nodeName string, a *admission.Attributes) error {
	if a.Operation != admission.Create {
		return forbidden(a, fmt.Errorf("unexpected operation %s", a.Operation))
	}
	var evictionName string
	switch e := a.Object.(type) {
	case *policyv1.Eviction:
		if e == nil {
			return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.Object)))
		}
		evictionName = e.Name
	case *policyv1beta1.Eviction:
		if e == nil {
			return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.Object)))
		}
		evictionName = e.Name
	default:
		return forbidden(a, fmt.Errorf("unexpected type %s", typeOf(a.Object)))
	}
	// The name in the path wins over the one in the submitted Eviction.
	podName := a.Name
	if podName == "" {
		podName = evictionName
	}
	if podName == "" {
		return forbidden(a, errors.New("could not determine pod from request data"))
	}
	pod, err := p.pod(ctx, a.Namespace, podName)
	if apierrors.IsNotFound(err) {
		return err
	}
	if err != nil {
		return forbidden(a, err)
	}
	if pod.Spec.NodeName != nodeName {
		return forbidden(a, fmt.Errorf("node %s can only evict pods with spec.nodeName set to itself", nodeName))
	}
	return nil
}
