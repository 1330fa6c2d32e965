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
)

// evictionKey is the pods/eviction connector, served by the handler itself.
var evictionKey = ConnectorKey{Resource: corev1.SchemeGroupVersion.WithResource("pods"), Subresource: "eviction"}

var evictionKind = policyv1.SchemeGroupVersion.WithKind("Eviction")

// evict answers a POST to pods/eviction as kube-apiserver does when no
// PodDisruptionBudget guards the pod, which is always here (portcullis
// serves no PodDisruptionBudgets): the Eviction is admitted as a create of
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
	attrs := h.attributes(ctx, res, "eviction", admission.Create, e, nil, options, len(opts.DryRun) > 0)
	attrs.Kind, attrs.RequestKind = evictionKind, evictionKind
	attrs.Name, attrs.Namespace = name, ns
	if err := h.cfg.Admission.Admit(ctx, attrs); err != nil {
		return nil, err
	}
	if err := h.cfg.Admission.Validate(ctx, attrs); err != nil {
		return nil, err
	}
	if _, _, err := h.deleteObject(ctx, res, ns, name, opts); err != nil {
		return nil, err
	}
	return &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess, Code: 201}, nil
}
