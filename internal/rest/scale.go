package rest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/registry"
)

// scaleParts returns pointers to a workload's replica fields.
func scaleParts(obj runtime.Object) (spec **int32, status int32, sel *metav1.LabelSelector, meta *metav1.ObjectMeta, err error) {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return &o.Spec.Replicas, o.Status.Replicas, o.Spec.Selector, &o.ObjectMeta, nil
	case *appsv1.ReplicaSet:
		return &o.Spec.Replicas, o.Status.Replicas, o.Spec.Selector, &o.ObjectMeta, nil
	case *appsv1.StatefulSet:
		return &o.Spec.Replicas, o.Status.Replicas, o.Spec.Selector, &o.ObjectMeta, nil
	case *corev1.ReplicationController:
		return &o.Spec.Replicas, o.Status.Replicas, rcSelector(o), &o.ObjectMeta, nil
	}
	return nil, 0, nil, nil, apierrors.NewInternalError(fmt.Errorf("%T has no scale subresource", obj))
}

// scaleAttributes are the attributes of a write through /scale as
// validating admission sees it: the Scales of obj and old.
func (h *Handler) scaleAttributes(ctx context.Context, res *registry.Resource, obj, old runtime.Object, options runtime.Object, dryRun bool) (*admission.Attributes, error) {
	scale, err := h.toScale(res, obj)
	if err != nil {
		return nil, err
	}
	oldScale, err := h.toScale(res, old)
	if err != nil {
		return nil, err
	}
	return h.attributes(ctx, res, "scale", admission.Update, scale, oldScale, options, dryRun), nil
}

// toScale renders a workload as autoscaling/v1 Scale.
func (h *Handler) toScale(res *registry.Resource, obj runtime.Object) (*autoscalingv1.Scale, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok && res.Custom != nil {
		return customScale(res, u)
	}
	spec, status, sel, m, err := scaleParts(obj)
	if err != nil {
		return nil, err
	}
	s := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID,
			ResourceVersion: m.ResourceVersion, CreationTimestamp: m.CreationTimestamp},
		Status: autoscalingv1.ScaleStatus{Replicas: status},
	}
	if *spec != nil {
		s.Spec.Replicas = **spec
	}
	if sel != nil {
		if ls, err := metav1.LabelSelectorAsSelector(sel); err == nil {
			s.Status.Selector = ls.String()
		}
	}
	return s, nil
}

func (h *Handler) updateScale(w http.ResponseWriter, r *http.Request, t target) {
	opts, options, err := parseWriteOptions(r, false)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	body, err := h.readBody(r)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	scale := &autoscalingv1.Scale{}
	dec, err := h.c.decoderFor(r.Header.Get("Content-Type"), false)
	if err != nil {
		h.rs.Error(w, r, unsupportedMediaType(r.Header.Get("Content-Type")))
		return
	}
	gvk := autoscalingv1.SchemeGroupVersion.WithKind("Scale")
	if _, _, err := dec.Decode(body, &gvk, scale); err != nil {
		h.rs.Error(w, r, apierrors.NewBadRequest(fmt.Sprintf("error decoding Scale: %v", err)))
		return
	}
	h.writeScale(w, r, t, func(cur *autoscalingv1.Scale) (*autoscalingv1.Scale, error) { return scale, nil }, opts, options)
}

func (h *Handler) patchScale(w http.ResponseWriter, r *http.Request, t target, ptype string, body []byte, opts writeOptions, options runtime.Object) {
	h.writeScale(w, r, t, func(cur *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
		doc, err := json.Marshal(cur)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		patched, err := applyPatch(ptype, doc, body, &autoscalingv1.Scale{})
		if err != nil {
			return nil, err
		}
		out := &autoscalingv1.Scale{}
		if err := json.Unmarshal(patched, out); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return out, nil
	}, opts, options)
}

// writeScale updates a workload's replicas through its Scale. As in
// kube-apiserver, admission sees the subresource: mutating admission the
// new and the current Scale before the replicas are applied, validating
// admission (in updateObject) the Scales of the updated and the stored
// object.
func (h *Handler) writeScale(w http.ResponseWriter, r *http.Request, t target, change func(*autoscalingv1.Scale) (*autoscalingv1.Scale, error), opts writeOptions, options runtime.Object) {
	ctx := r.Context()
	out, _, err := h.updateObject(ctx, target{res: t.res, ns: t.ns, name: t.name, sub: "scale"}, func(cur runtime.Object) (runtime.Object, error) {
		curScale, err := h.toScale(t.res, cur)
		if err != nil {
			return nil, err
		}
		scale, err := change(curScale.DeepCopy())
		if err != nil {
			return nil, err
		}
		if scale.Name != "" && scale.Name != t.name {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", scale.Name, t.name))
		}
		h.scaleAdmissionFields(t.res, cur, curScale, scale, opts.FieldManager)
		attrs := h.attributes(ctx, t.res, "scale", admission.Update, scale, curScale, options, opts.DryRun)
		attrs.Name, attrs.Namespace = t.name, t.ns
		if err := h.cfg.Admission.Admit(ctx, attrs); err != nil {
			return nil, err
		}
		admitted, ok := attrs.Object.(*autoscalingv1.Scale)
		if !ok {
			return nil, apierrors.NewInternalError(fmt.Errorf("admission made the Scale a %T", attrs.Object))
		}
		scale = admitted
		if scale.Spec.Replicas < 0 {
			return nil, apierrors.NewInvalid(autoscalingv1.SchemeGroupVersion.WithKind("Scale").GroupKind(), t.name, field.ErrorList{
				field.Invalid(field.NewPath("spec", "replicas"), scale.Spec.Replicas, "must be greater than or equal to 0")})
		}
		if u, ok := cur.(*unstructured.Unstructured); ok && t.res.Custom != nil {
			if err := setCustomReplicas(t.res, u, scale.Spec.Replicas); err != nil {
				return nil, apierrors.NewInternalError(err)
			}
			u.SetResourceVersion(scale.ResourceVersion)
			return u, nil
		}
		spec, _, _, m, _ := scaleParts(cur)
		replicas := scale.Spec.Replicas
		*spec = &replicas
		m.ResourceVersion = scale.ResourceVersion
		return cur, nil
	}, opts, options, false)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	s, err := h.toScale(t.res, out)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	h.rs.Object(w, r, http.StatusOK, s)
}

// scaleReplicasFields is spec.replicas of a Scale, the one field a write
// through /scale manages.
var scaleReplicasFields = &metav1.FieldsV1{Raw: []byte(`{"f:spec":{"f:replicas":{}}}`)}

// scaleManagedFields records a write through /scale in obj's managed
// fields as kube-apiserver's scale storage does (managedfields.ScaleHandler):
// the owners of the replicas are seen as owners of the Scale's
// spec.replicas; when the write changes the replicas, manager's Update
// entry of the scale subresource takes them from every other owner; the
// result is mapped back onto the workload, where the replicas leave the
// entries that lost them and the scale entry carries no time.
func (h *Handler) scaleManagedFields(res *registry.Resource, cur, obj runtime.Object, manager string) error {
	mappings := h.replicasPaths(res)
	curMeta, err := meta.Accessor(cur)
	if err != nil {
		return err
	}
	objMeta, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	handler := managedfields.NewScaleHandler(curMeta.GetManagedFields(), res.GVR.GroupVersion(), mappings)
	entries, err := handler.ToSubresource()
	if err != nil {
		return err
	}
	oldScale, err := h.toScale(res, cur)
	if err != nil {
		return err
	}
	newScale, err := h.toScale(res, obj)
	if err != nil {
		return err
	}
	entries = scaleEntriesAfter(entries, oldScale.Spec.Replicas != newScale.Spec.Replicas, manager, nil)
	parent, err := handler.ToParent(entries)
	if err != nil {
		return err
	}
	objMeta.SetManagedFields(parent)
	return nil
}

// replicasPaths maps each served version of res to the path of its
// replicas, as kube-apiserver's scale storage is given them.
func (h *Handler) replicasPaths(res *registry.Resource) managedfields.ResourcePathMappings {
	gv := res.GVR.GroupVersion().String()
	if res.Custom == nil {
		return managedfields.ResourcePathMappings{gv: fieldpath.MakePathOrDie("spec", "replicas")}
	}
	out := managedfields.ResourcePathMappings{}
	for _, v := range res.Custom.Versions {
		r, ok := h.reg.Lookup(schema.GroupVersionResource{Group: res.GVR.Group, Version: v, Resource: res.GVR.Resource})
		if !ok || r.Custom == nil || r.Custom.Scale == nil {
			continue
		}
		var parts []any
		for _, p := range jsonPath(r.Custom.Scale.SpecReplicasPath) {
			parts = append(parts, p)
		}
		if path, err := fieldpath.MakePath(parts...); err == nil {
			out[r.GVR.GroupVersion().String()] = path
		}
	}
	return out
}

// scaleEntriesAfter are the managed fields of a Scale after manager's
// write, given those before (every entry of a Scale owns only its
// replicas): when the write changes the replicas, it takes them from all.
func scaleEntriesAfter(before []metav1.ManagedFieldsEntry, changed bool, manager string, at *metav1.Time) []metav1.ManagedFieldsEntry {
	if !changed {
		return before
	}
	return []metav1.ManagedFieldsEntry{{
		Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "autoscaling/v1", Time: at,
		FieldsType: "FieldsV1", FieldsV1: scaleReplicasFields, Subresource: "scale",
	}}
}

// scaleAdmissionFields gives the Scales mutating admission sees their
// managed fields, as kube-apiserver's scale handler does: the stored one
// those of the workload's replicas owners, the written one those after
// the write.
func (h *Handler) scaleAdmissionFields(res *registry.Resource, cur runtime.Object, curScale, scale *autoscalingv1.Scale, manager string) {
	m, err := meta.Accessor(cur)
	if err != nil {
		return
	}
	before, err := managedfields.NewScaleHandler(m.GetManagedFields(), res.GVR.GroupVersion(), h.replicasPaths(res)).ToSubresource()
	if err != nil {
		return
	}
	now := metav1.NewTime(h.cfg.Now().Truncate(time.Second))
	curScale.ManagedFields = before
	scale.ManagedFields = scaleEntriesAfter(before, curScale.Spec.Replicas != scale.Spec.Replicas, manager, &now)
}
