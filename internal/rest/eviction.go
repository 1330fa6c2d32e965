package rest

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/registry"
)

// evictionKey is the pods/eviction connector, served by the handler itself.
var evictionKey = ConnectorKey{Resource: corev1.SchemeGroupVersion.WithResource("pods"), Subresource: "eviction"}

var evictionKind = policyv1.SchemeGroupVersion.WithKind("Eviction")

// evict answers a POST to pods/eviction as kube-apiserver does when no
// PodDisruptionBudget guards the pod: budgets are stored but not consulted
// yet (docs/api.md), so a budget that allows no disruption does not stop
// the eviction as it does there. The Eviction is admitted as a create of
// pods/eviction (NodeRestriction lets a node evict only its own pods), and
// the pod is deleted with the Eviction's deleteOptions.
func (h *Handler) evict(ctx context.Context, ns, name string, body runtime.Object, options *metav1.CreateOptions) (runtime.Object, error) {
	e, ok := body.(*policyv1.Eviction)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a Eviction object: %T", body))
	}
	if name != e.Name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in Eviction object")
	}
	opts := &metav1.DeleteOptions{}
	if e.DeleteOptions != nil {
		opts = e.DeleteOptions.DeepCopy()
	}
	if ptr.Deref(opts.IgnoreStoreReadErrorWithClusterBreakingPotential, false) {
		return nil, apierrors.NewInvalid(evictionKind.GroupKind(), name, field.ErrorList{
			field.Invalid(field.NewPath("deleteOptions").Child("ignoreStoreReadErrorWithClusterBreakingPotential"), true, "can not be set for pod eviction, try after removing the option")})
	}
	if len(options.DryRun) > 0 {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	res, ok := h.reg.Lookup(evictionKey.Resource)
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, name)
	}
	if err := h.admitConnector(ctx, res, "eviction", evictionKind, ns, name, e, options, len(opts.DryRun) > 0); err != nil {
		return nil, err
	}
	if len(opts.DryRun) == 0 {
		if err := h.markDisruptionTarget(ctx, res, ns, name, opts.Preconditions); err != nil {
			return nil, err
		}
		// The pod's resourceVersion is the one just written.
		opts.Preconditions = nil
	}
	if _, _, err := h.deleteObject(ctx, res, ns, name, opts); err != nil {
		return nil, err
	}
	return &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess, Code: 201}, nil
}

// markDisruptionTarget adds the condition kube-apiserver's eviction adds
// before the deletion (DisruptionTarget, reason EvictionByEvictionAPI),
// after checking the Eviction's preconditions as it does.
func (h *Handler) markDisruptionTarget(ctx context.Context, res *registry.Resource, ns, name string, pre *metav1.Preconditions) error {
	key := res.Key(ns, name)
	kv, err := h.store.Get(ctx, key)
	if err != nil {
		return objects.StorageError(err, res.GroupResource(), name)
	}
	cur, err := h.o.DecodeContext(ctx, res, kv)
	if err != nil {
		return codecError(err)
	}
	pod, ok := cur.(*corev1.Pod)
	if !ok {
		return apierrors.NewInternalError(fmt.Errorf("not a pod: %T", cur))
	}
	if pre != nil {
		podKind := schema.GroupResource{Resource: "Pod"}
		if uid := pre.UID; uid != nil && *uid != "" && *uid != pod.UID {
			return apierrors.NewConflict(podKind, name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *uid, pod.UID))
		}
		if rv := pre.ResourceVersion; rv != nil && *rv != "" && *rv != pod.ResourceVersion {
			return apierrors.NewConflict(podKind, name, fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *rv, pod.ResourceVersion))
		}
	}
	pod = pod.DeepCopy()
	setPodCondition(&pod.Status, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
		Reason: "EvictionByEvictionAPI", Message: "Eviction API: evicting"}, metav1.NewTime(h.cfg.Now()))
	data, err := h.o.EncodeContext(ctx, res, pod)
	if err != nil {
		return codecError(err)
	}
	if _, err := h.store.Update(ctx, key, data, kv.ModRevision); err != nil {
		return objects.StorageError(err, res.GroupResource(), name)
	}
	return nil
}

// setPodCondition sets c in status as kube-apiserver's UpdatePodCondition
// does: the transition time moves only when the status changes.
func setPodCondition(status *corev1.PodStatus, c corev1.PodCondition, now metav1.Time) {
	c.LastTransitionTime = now
	for i, old := range status.Conditions {
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		c.LastProbeTime = old.LastProbeTime
		status.Conditions[i] = c
		return
	}
	status.Conditions = append(status.Conditions, c)
}

// admitConnector runs the body of a connector (an Eviction, a Binding)
// through both admission phases as a create of res/sub, of its own kind.
func (h *Handler) admitConnector(ctx context.Context, res *registry.Resource, sub string, kind schema.GroupVersionKind, ns, name string, body runtime.Object, options *metav1.CreateOptions, dryRun bool) error {
	attrs := h.attributes(ctx, res, sub, admission.Create, body, nil, options, dryRun)
	attrs.Kind, attrs.RequestKind = kind, kind
	attrs.Name, attrs.Namespace = name, ns
	if err := h.cfg.Admission.Admit(ctx, attrs); err != nil {
		return err
	}
	return h.cfg.Admission.Validate(ctx, attrs)
}
