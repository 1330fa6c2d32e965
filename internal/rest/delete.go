package rest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

func (h *Handler) deleteOptions(r *http.Request) (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	body, err := h.readBody(r)
	if err != nil {
		return nil, err
	}
	if len(strings.TrimSpace(string(body))) > 0 {
		dec, err := h.c.decoderFor(r.Header.Get("Content-Type"), false)
		if err != nil {
			return nil, unsupportedMediaType(r.Header.Get("Content-Type"))
		}
		gvk := metav1.SchemeGroupVersion.WithKind("DeleteOptions")
		if _, _, err := dec.Decode(body, &gvk, opts); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding DeleteOptions: %v", err))
		}
	}
	if err := h.c.params.DecodeParameters(r.URL.Query(), metav1.Unversioned, opts); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	if errs := metavalidation.ValidateDeleteOptions(opts); len(errs) > 0 {
		return nil, apierrors.NewInvalid(deleteOptionsKind, "", errs)
	}
	if opts.GracePeriodSeconds != nil && *opts.GracePeriodSeconds < 0 {
		zero := int64(0)
		opts.GracePeriodSeconds = &zero
	}
	opts.TypeMeta = metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "DeleteOptions"}
	return opts, nil
}

// deleteOptionsKind names DeleteOptions in validation errors.
var deleteOptionsKind = schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request, t target) {
	opts, err := h.deleteOptions(r)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	if t.res.DeleteForbidden != nil {
		if err := t.res.DeleteForbidden(t.name); err != nil {
			h.rs.Error(w, r, err)
			return
		}
	}
	if ptr.Deref(opts.IgnoreStoreReadErrorWithClusterBreakingPotential, false) {
		h.unsafeDelete(w, r, t, opts)
		return
	}
	obj, deleted, err := h.deleteObject(r.Context(), t.res, t.ns, t.name, opts)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	if !deleted {
		// As kube-apiserver: 200 with the object held back (by
		// finalizers, a namespace's termination, a grace period), 202
		// only when the client asked for cascading deletion with
		// orphanDependents false.
		code := http.StatusOK
		if opts.OrphanDependents != nil && !*opts.OrphanDependents { //nolint:staticcheck // the field kube-apiserver checks
			code = http.StatusAccepted
		}
		h.respond(w, r, code, t.res, obj)
		return
	}
	if t.res.ReturnDeleted {
		h.respond(w, r, http.StatusOK, t.res, obj)
		return
	}
	m, _ := meta.Accessor(obj)
	h.rs.Object(w, r, http.StatusOK, &metav1.Status{
		Status:  metav1.StatusSuccess,
		Details: &metav1.StatusDetails{Name: t.name, Group: t.res.GVR.Group, Kind: t.res.GVR.Resource, UID: m.GetUID()},
	})
}

// deleteObject deletes one object, or marks it for deletion when
// finalizers or a pod's grace period hold it back. deleted reports whether
// it is gone.
func (h *Handler) deleteObject(ctx context.Context, res *registry.Resource, ns, name string, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	return h.deleteAdmitted(ctx, res, ns, name, name, opts)
}

// deleteAdmitted is deleteObject with the name admission sees: empty for
// the items of a collection's deletion, as kube-apiserver's attributes of
// a deletecollection carry none.
func (h *Handler) deleteAdmitted(ctx context.Context, res *registry.Resource, ns, name, admitName string, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	key := res.Key(ns, name)
	dryRun := len(opts.DryRun) > 0
	for attempt := 0; ; attempt++ {
		kv, err := h.store.Get(ctx, key)
		if err != nil {
			return nil, false, objects.StorageError(err, res.GroupResource(), name)
		}
		cur, err := h.o.DecodeContext(ctx, res, kv)
		if err != nil {
			return nil, false, codecError(err)
		}
		m, _ := meta.Accessor(cur)
		if res.GVR.Group == "" && res.GVR.Resource == "namespaces" {
			// kube-apiserver's namespace storage makes the uid a
			// precondition of the deletion, which admission sees.
			opts = namespaceDeleteOptions(opts, m.GetUID())
		}
		if p := opts.Preconditions; p != nil {
			if res.GVR.Group == "" && res.GVR.Resource == "namespaces" {
				// kube-apiserver's namespace storage checks them itself.
				if p.UID != nil && *p.UID != m.GetUID() {
					return nil, false, apierrors.NewConflict(res.GroupResource(), name,
						fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, m.GetUID()))
				}
				if p.ResourceVersion != nil && *p.ResourceVersion != m.GetResourceVersion() {
					return nil, false, apierrors.NewConflict(res.GroupResource(), name,
						fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, m.GetResourceVersion()))
				}
			}
			// kube-apiserver's BeforeDelete names the kind, not the resource.
			kind := schema.GroupResource{Group: res.GVR.Group, Resource: res.Kind}
			if p.UID != nil && *p.UID != m.GetUID() {
				return nil, false, apierrors.NewConflict(kind, name,
					fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *p.UID, m.GetUID()))
			}
			if p.ResourceVersion != nil && *p.ResourceVersion != m.GetResourceVersion() {
				return nil, false, apierrors.NewConflict(kind, name,
					fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *p.ResourceVersion, m.GetResourceVersion()))
			}
		}
		attrs := h.attributes(ctx, res, "", admission.Delete, nil, cur, opts, dryRun)
		attrs.Name = admitName
		if err := h.cfg.Admission.Admit(ctx, attrs); err != nil {
			return nil, false, err
		}
		if err := h.cfg.Admission.Validate(ctx, attrs); err != nil {
			return nil, false, err
		}

		if crd, ok := cur.(*apiextensionsv1.CustomResourceDefinition); ok && crd.DeletionTimestamp == nil {
			markCRDTerminating(crd, h.cfg.Now())
		}
		if pending, grace := h.pendingDeletion(cur, opts); pending {
			if m.GetDeletionTimestamp() != nil && (grace == nil || (m.GetDeletionGracePeriodSeconds() != nil && *grace >= *m.GetDeletionGracePeriodSeconds())) {
				// Already being deleted; nothing shortens it.
				return cur, false, nil
			}
			now := metav1.NewTime(h.cfg.Now().Truncate(time.Second))
			if grace != nil {
				now = metav1.NewTime(now.Add(time.Duration(*grace) * time.Second))
			} else {
				zero := int64(0)
				grace = &zero
			}
			if m.GetDeletionTimestamp() == nil && m.GetGeneration() > 0 {
				// Starting to delete changes what controllers must do: as
				// in kube-apiserver, that is a new generation.
				m.SetGeneration(m.GetGeneration() + 1)
			}
			if m.GetDeletionTimestamp() == nil || now.Before(m.GetDeletionTimestamp()) {
				m.SetDeletionTimestamp(&now)
			}
			m.SetDeletionGracePeriodSeconds(grace)
			if ns, ok := cur.(*corev1.Namespace); ok {
				ns.Status.Phase = corev1.NamespaceTerminating
			}
			if dryRun {
				return cur, false, nil
			}
			data, err := h.o.EncodeContext(ctx, res, cur)
			if err != nil {
				return nil, false, codecError(err)
			}
			nkv, err := h.store.Update(ctx, key, data, kv.ModRevision)
			if errors.Is(err, storage.ErrConflict) && attempt < 100 {
				continue
			}
			if err != nil {
				return nil, false, objects.StorageError(err, res.GroupResource(), name)
			}
			setRV(cur, nkv.ModRevision)
			return cur, false, nil
		}
		if m.GetDeletionTimestamp() != nil {
			// A graceful deletion cut short answers with the period it ended with.
			zero := int64(0)
			m.SetDeletionGracePeriodSeconds(&zero)
		}
		if dryRun {
			return cur, true, nil
		}
		_, rev, err := h.store.Delete(ctx, key, kv.ModRevision)
		if errors.Is(err, storage.ErrConflict) && attempt < 100 {
			continue
		}
		if err != nil {
			return nil, false, objects.StorageError(err, res.GroupResource(), name)
		}
		setRV(cur, rev)
		return cur, true, nil
	}
}

// pendingDeletion decides whether cur must wait before it is removed: it
// has finalizers, it is a namespace (whose contents go first), or it is a
// pod on a node that gets its grace period to stop. grace is the period
// to record, nil for none.
func (h *Handler) pendingDeletion(cur runtime.Object, opts *metav1.DeleteOptions) (bool, *int64) {
	m, _ := meta.Accessor(cur)
	switch o := cur.(type) {
	case *corev1.Namespace:
		return true, nil
	case *corev1.Pod:
		grace := int64(corev1.DefaultTerminationGracePeriodSeconds)
		if o.Spec.TerminationGracePeriodSeconds != nil {
			grace = *o.Spec.TerminationGracePeriodSeconds
		}
		if opts.GracePeriodSeconds != nil {
			grace = *opts.GracePeriodSeconds
		}
		// Unscheduled and finished pods have nothing to stop.
		if o.Spec.NodeName == "" || o.Status.Phase == corev1.PodSucceeded || o.Status.Phase == corev1.PodFailed {
			grace = 0
		}
		if grace > 0 {
			return true, &grace
		}
		if len(m.GetFinalizers()) > 0 {
			return true, &grace
		}
		return false, nil
	}
	return len(m.GetFinalizers()) > 0, nil
}

// deletableNow reports whether an object whose finalizers are all gone
// may be removed (a pod waits for its kubelet while in its grace period).
func (h *Handler) deletableNow(obj runtime.Object) bool {
	m, _ := meta.Accessor(obj)
	if _, ok := obj.(*corev1.Namespace); ok {
		return false
	}
	if _, ok := obj.(*corev1.Pod); ok {
		g := m.GetDeletionGracePeriodSeconds()
		return g == nil || *g == 0
	}
	return true
}

func (h *Handler) deleteCollection(w http.ResponseWriter, r *http.Request, t target) {
	opts, err := h.deleteOptions(r)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	if ptr.Deref(opts.IgnoreStoreReadErrorWithClusterBreakingPotential, false) {
		h.rs.Error(w, r, apierrors.NewInvalid(deleteOptionsKind, "", field.ErrorList{field.Invalid(
			field.NewPath("ignoreStoreReadErrorWithClusterBreakingPotential"), true, "is not allowed with DELETECOLLECTION, try again after removing the option")}))
		return
	}
	lopts, err := h.decodeListOptions(r)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	lopts.Limit, lopts.Continue = 0, ""
	list, err := h.listObjects(r.Context(), t.res, t.ns, lopts)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	items, _ := meta.ExtractList(list)
	var deleted []runtime.Object
	for _, it := range items {
		m, _ := meta.Accessor(it)
		out, _, err := h.deleteAdmitted(r.Context(), t.res, m.GetNamespace(), m.GetName(), "", opts)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			h.rs.Error(w, r, err)
			return
		}
		if t.res.Custom == nil {
			// Items of a built-in list carry no apiVersion and kind.
			out.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		}
		deleted = append(deleted, out)
	}
	_ = meta.SetList(list, deleted)
	h.respond(w, r, http.StatusOK, t.res, list)
}

// namespaceDeleteOptions returns opts with uid as the precondition of a
// namespace's deletion when it names none (a differing one fails the
// precondition check as before).
func namespaceDeleteOptions(opts *metav1.DeleteOptions, uid types.UID) *metav1.DeleteOptions {
	if opts.Preconditions != nil && opts.Preconditions.UID != nil {
		return opts
	}
	out := opts.DeepCopy()
	if out.Preconditions == nil {
		out.Preconditions = &metav1.Preconditions{}
	}
	out.Preconditions.UID = &uid
	return out
}
