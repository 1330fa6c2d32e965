package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// bindingKey is the pods/binding connector, served by the handler itself:
// how a scheduler assigns a pod to a node.
var bindingKey = ConnectorKey{Resource: corev1.SchemeGroupVersion.WithResource("pods"), Subresource: "binding"}

var (
	bindingKind     = corev1.SchemeGroupVersion.WithKind("Binding")
	bindingResource = schema.GroupResource{Resource: "pods/binding"}
)

// bindAttempts bounds the retries of a binding that meets a concurrent
// write of the pod, as kube-apiserver's storage retries its update.
const bindAttempts = 5

// bind answers a POST to pods/binding (or to the namespace's legacy
// bindings resource): the Binding is validated and admitted as a create of
// pods/binding, then the pod gets the target node, the Binding's
// annotations and labels, and a PodScheduled condition.
func (h *Handler) bind(ctx context.Context, ns, name string, body runtime.Object, options *metav1.CreateOptions) (runtime.Object, error) {
	res, ok := h.reg.Lookup(bindingKey.Resource)
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, name)
	}
	return h.bindAs(ctx, res, "binding", ns, name, body, options)
}

// bindAs binds with the admission attributes of res and sub (pods/binding,
// or the legacy bindings resource).
func (h *Handler) bindAs(ctx context.Context, res *registry.Resource, sub, ns, name string, body runtime.Object, options *metav1.CreateOptions) (runtime.Object, error) {
	b, ok := body.(*corev1.Binding)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("not a Binding object: %T", body))
	}
	if name != b.Name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in Binding object")
	}
	if errs := validateBinding(b); len(errs) > 0 {
		// kube-apiserver returns these as a plain error: a 500 without a
		// reason, the errors joined.
		return nil, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: 500, Message: errs.ToAggregate().Error()}}
	}
	dryRun := len(options.DryRun) > 0
	if err := h.admitConnector(ctx, res, sub, bindingKind, ns, name, b, options, dryRun); err != nil {
		return nil, err
	}
	var err error
	for range bindAttempts {
		if err = h.assignPod(ctx, ns, b, dryRun); !errors.Is(err, storage.ErrConflict) {
			break
		}
	}
	if errors.Is(err, storage.ErrConflict) {
		err = apierrors.NewConflict(bindingResource, name, err)
	}
	if err != nil {
		return nil, err
	}
	return &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusSuccess, Code: 201}, nil
}

func validateBinding(b *corev1.Binding) field.ErrorList {
	var errs field.ErrorList
	tp := field.NewPath("target")
	if k := b.Target.Kind; k != "" && k != "Node" {
		errs = append(errs, field.NotSupported(tp.Child("kind"), k, []string{"Node", "<empty>"}))
	}
	switch {
	case b.Target.Name == "":
		errs = append(errs, field.Required(tp.Child("name"), ""))
	case b.Target.Kind == "" || b.Target.Kind == "Node":
		for _, msg := range genericvalidation.NameIsDNSSubdomain(b.Target.Name, false) {
			errs = append(errs, field.Invalid(tp.Child("name"), b.Target.Name, msg))
		}
	}
	return errs
}

// assignPod writes the binding into the stored pod; a storage conflict is
// returned as storage.ErrConflict for the caller to retry.
func (h *Handler) assignPod(ctx context.Context, ns string, b *corev1.Binding, dryRun bool) error {
	res, _ := h.reg.Lookup(bindingKey.Resource)
	key := res.Key(ns, b.Name)
	kv, err := h.store.Get(ctx, key)
	if err != nil {
		return objects.StorageError(err, res.GroupResource(), b.Name)
	}
	cur, err := h.o.DecodeContext(ctx, res, kv)
	if err != nil {
		return codecError(err)
	}
	pod, ok := cur.(*corev1.Pod)
	if !ok {
		return apierrors.NewInternalError(fmt.Errorf("not a pod: %T", cur))
	}
	if uid := b.UID; uid != "" && uid != pod.UID {
		return preconditionConflict(res, ns, b.Name, "UID", string(uid), string(pod.UID))
	}
	if rv := b.ResourceVersion; rv != "" && rv != pod.ResourceVersion {
		return preconditionConflict(res, ns, b.Name, "ResourceVersion", rv, pod.ResourceVersion)
	}
	var refusal error
	switch {
	case pod.DeletionTimestamp != nil:
		refusal = fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", pod.Name)
	case pod.Spec.NodeName != "":
		refusal = fmt.Errorf("pod %v is already assigned to node %q", pod.Name, pod.Spec.NodeName)
	case len(pod.Spec.SchedulingGates) != 0:
		refusal = fmt.Errorf("pod %v has non-empty .spec.schedulingGates", pod.Name)
	}
	if refusal != nil {
		return apierrors.NewConflict(bindingResource, b.Name, refusal)
	}
	pod = pod.DeepCopy()
	pod.Spec.NodeName = b.Target.Name
	pod.Status.NominatedNodeName = ""
	if len(b.Annotations) > 0 && pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	for k, v := range b.Annotations {
		pod.Annotations[k] = v
	}
	if len(b.Labels) > 0 && pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	for k, v := range b.Labels {
		pod.Labels[k] = v
	}
	setPodCondition(&pod.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, metav1.NewTime(h.cfg.Now()))
	if dryRun {
		return nil
	}
	data, err := h.o.EncodeContext(ctx, res, pod)
	if err != nil {
		return codecError(err)
	}
	if _, err := h.store.Update(ctx, key, data, kv.ModRevision); err != nil {
		if errors.Is(err, storage.ErrConflict) {
			return err
		}
		return objects.StorageError(err, res.GroupResource(), b.Name)
	}
	return nil
}

// legacyBindings is the namespace's bindings resource, kube-apiserver's
// older form of pods/binding: the Binding names the pod.
var legacyBindings = corev1.SchemeGroupVersion.WithResource("bindings")

func (h *Handler) bindLegacy(w http.ResponseWriter, r *http.Request, t target, obj runtime.Object, opts runtime.Object) {
	b, ok := obj.(*corev1.Binding)
	if !ok {
		h.rs.Error(w, r, apierrors.NewBadRequest(fmt.Sprintf("not a Binding object: %T", obj)))
		return
	}
	options, _ := opts.(*metav1.CreateOptions)
	if options == nil {
		options = &metav1.CreateOptions{}
	}
	out, err := h.bindAs(r.Context(), t.res, "", t.ns, b.Name, b, options)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	h.respond(w, r, http.StatusCreated, t.res, out)
}

// preconditionConflict is kube-apiserver's storage error for a write whose
// precondition (UID or ResourceVersion) the stored object does not meet;
// the key is named relative to the storage prefix, as etcd3's store names it.
func preconditionConflict(res *registry.Resource, ns, name, what, want, have string) error {
	key := res.BelowRoot(res.Key(ns, name))
	return apierrors.NewConflict(res.GroupResource(), name, fmt.Errorf(
		"StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: %s in precondition: %s, %s in object meta: %s",
		key, what, want, what, have))
}
