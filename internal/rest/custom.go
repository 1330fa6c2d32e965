package rest

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/request"
)

// This file holds what differs for custom resources: their objects are
// *unstructured.Unstructured, their schema (registry.Custom) defaults and
// validates them, and they have no Go type to reflect on.

// defaultObject sets obj's defaults: the schema's for custom resources,
// the Go type's for the others.
func (h *Handler) defaultObject(res *registry.Resource, obj runtime.Object) {
	if res.Custom != nil {
		if u, ok := obj.(*unstructured.Unstructured); ok {
			res.Custom.Schema.Default(u.Object)
		}
		return
	}
	if h.cfg.Default != nil {
		h.cfg.Default(obj)
	}
}

// settleCustom prunes and defaults a custom resource that did not come
// through the request decoder (in-process writes, patches), as
// kube-apiserver's decoder does.
func settleCustom(res *registry.Resource, obj runtime.Object) {
	if res.Custom == nil {
		return
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		res.Custom.Schema.Prune(u.Object)
		res.Custom.Schema.Default(u.Object)
	}
}

// settleAdmitted defaults a custom resource after mutating admission, as
// kube-apiserver defaults an object a webhook patched. Fields the schema
// does not know stay until pruneAdmitted: object validation and
// validating admission still see what mutating admission added, as they
// do in kube-apiserver, whose storage codec prunes on the way to storage.
func settleAdmitted(res *registry.Resource, obj runtime.Object) {
	if res.Custom == nil {
		return
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		res.Custom.Schema.Default(u.Object)
	}
}

// pruneAdmitted removes, once admission is done, the fields of a custom
// resource its schema does not know, so that neither the store nor the
// response holds them.
func pruneAdmitted(res *registry.Resource, obj runtime.Object) {
	if res.Custom == nil {
		return
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		res.Custom.Schema.Prune(u.Object)
	}
}

func (h *Handler) validateCreate(ctx context.Context, res *registry.Resource, obj runtime.Object) field.ErrorList {
	if res.Custom == nil {
		errs := h.cfg.ValidateCreate(obj)
		if len(errs) == 0 && h.cfg.Warnings != nil {
			addWarnings(ctx, h.cfg.Warnings(obj, nil))
		}
		return errs
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("%T is not unstructured", obj))}
	}
	errs := res.Custom.Schema.ValidateCreate(ctx, u)
	if len(errs) == 0 {
		addWarnings(ctx, res.Custom.Schema.WarningsOnCreate(u))
	}
	return errs
}

func (h *Handler) validateUpdate(ctx context.Context, res *registry.Resource, sub string, obj, old runtime.Object) field.ErrorList {
	if res.Custom == nil {
		if sub == "status" && h.cfg.ValidateStatusUpdate != nil {
			return h.cfg.ValidateStatusUpdate(obj, old)
		}
		errs := h.cfg.ValidateUpdate(obj, old)
		if len(errs) == 0 && sub == "" && h.cfg.Warnings != nil {
			addWarnings(ctx, h.cfg.Warnings(obj, old))
		}
		return errs
	}
	u, ok1 := obj.(*unstructured.Unstructured)
	o, ok2 := old.(*unstructured.Unstructured)
	if !ok1 || !ok2 {
		return field.ErrorList{field.InternalError(nil, fmt.Errorf("%T is not unstructured", obj))}
	}
	var errs field.ErrorList
	var warnings []string
	if sub == "status" {
		errs, warnings = res.Custom.Schema.ValidateStatusUpdate(ctx, u, o)
	} else {
		errs, warnings = res.Custom.Schema.ValidateUpdate(ctx, u, o)
		if len(errs) == 0 {
			warnings = append(warnings, res.Custom.Schema.WarningsOnUpdate(u, o)...)
		}
	}
	addWarnings(ctx, warnings)
	return errs
}

func addWarnings(ctx context.Context, warnings []string) {
	if st := request.StateFrom(ctx); st != nil {
		for _, w := range warnings {
			st.AddWarning(w)
		}
	}
}

// manager returns the field manager of res (sub "" or "status").
func (h *Handler) manager(res *registry.Resource, sub string) *managedfields.FieldManager {
	if res.Custom != nil {
		return res.Custom.Managers[sub]
	}
	return h.managers[managerKey{res.GVR, sub}]
}

func (h *Handler) table(res *registry.Resource, obj runtime.Object, opts metav1.TableOptions) (*metav1.Table, error) {
	if res.Custom != nil {
		return res.Custom.Schema.Table(obj, opts, h.cfg.Now())
	}
	if h.cfg.Table != nil {
		return h.cfg.Table(obj, opts, h.cfg.Now())
	}
	return defaultTable(obj, opts)
}

// decodeCustom decodes a custom resource from a request body as
// kube-apiserver does: JSON or YAML only, metadata coerced, unknown fields
// pruned (and reported under the fieldValidation directive), defaulted.
func (h *Handler) decodeCustom(r *http.Request, res *registry.Resource, body []byte, directive string) (runtime.Object, error) {
	ct := r.Header.Get("Content-Type")
	typ := mediaJSON
	if ct != "" {
		t, _, err := mime.ParseMediaType(ct)
		if err != nil {
			return nil, unsupportedMediaType(ct)
		}
		typ = t
	}
	if typ != mediaJSON && typ != mediaYAML {
		return nil, apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "", schema.GroupResource{}, "",
			fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (got %q)", ct), 0, false)
	}
	dec, err := h.c.decoderFor(ct, directive != "Ignore")
	if err != nil {
		return nil, unsupportedMediaType(ct)
	}
	cannot := func(err error) error {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", res.Kind, res.GVR.Version, res.Kind, err))
	}
	u := &unstructured.Unstructured{}
	_, _, err = dec.Decode(body, nil, u)
	var strictErrs []string
	if err != nil && !runtime.IsStrictDecodingError(err) {
		return nil, cannot(err)
	}
	if err != nil {
		strictErrs = strictErrors(err)
	}
	if gvk := u.GroupVersionKind(); gvk.Kind != res.Kind || gvk.GroupVersion() != res.GVR.GroupVersion() {
		if gvk.Empty() || gvk.Kind == "" {
			return nil, cannot(fmt.Errorf("Object 'Kind' is missing in '%s'", strings.TrimSpace(string(body))))
		}
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", gvk.GroupVersion(), res.GVR.GroupVersion()))
	}
	s := res.Custom.Schema
	unknown, err := s.Coerce(u)
	if err != nil {
		return nil, cannot(err)
	}
	for _, p := range unknown {
		strictErrs = append(strictErrs, fmt.Sprintf("unknown field %q", p))
	}
	s.Default(u.Object)
	if len(strictErrs) > 0 {
		if directive == "Strict" {
			return nil, cannot(fmt.Errorf("strict decoding error: %s", strings.Join(strictErrs, ", ")))
		}
		if st := request.StateFrom(r.Context()); st != nil {
			for _, e := range strictErrs {
				st.AddWarning(e)
			}
		}
	}
	return u, nil
}

// prepareCustomForCreate and prepareCustomForUpdate apply the custom
// resource strategy of the schema (status kept out of the main resource,
// generation) to the generic preparation of strategy.go.
func prepareCustomForCreate(res *registry.Resource, u *unstructured.Unstructured) {
	res.Custom.Schema.PrepareForCreate(u)
}

func prepareCustomForUpdate(res *registry.Resource, sub string, u, old *unstructured.Unstructured) {
	if sub == "status" {
		rv := u.GetResourceVersion()
		res.Custom.Schema.PrepareForStatusUpdate(u, old)
		u.SetResourceVersion(rv)
		return
	}
	res.Custom.Schema.PrepareForUpdate(u, old)
}

// customScale reads a custom resource's replicas by the CRD's scale paths.
func customScale(res *registry.Resource, u *unstructured.Unstructured) (*autoscalingv1.Scale, error) {
	sc := res.Custom.Scale
	s := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{Name: u.GetName(), Namespace: u.GetNamespace(), UID: u.GetUID(),
			ResourceVersion: u.GetResourceVersion(), CreationTimestamp: u.GetCreationTimestamp()},
	}
	spec, _, err := unstructured.NestedInt64(u.Object, jsonPath(sc.SpecReplicasPath)...)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("reading %s: %w", sc.SpecReplicasPath, err))
	}
	s.Spec.Replicas = int32(spec)
	if status, _, err := unstructured.NestedInt64(u.Object, jsonPath(sc.StatusReplicasPath)...); err == nil {
		s.Status.Replicas = int32(status)
	}
	if sc.LabelSelectorPath != nil {
		if sel, _, err := unstructured.NestedString(u.Object, jsonPath(*sc.LabelSelectorPath)...); err == nil {
			s.Status.Selector = sel
		}
	}
	return s, nil
}

// setCustomReplicas writes replicas at the CRD's spec replicas path.
func setCustomReplicas(res *registry.Resource, u *unstructured.Unstructured, replicas int32) error {
	return unstructured.SetNestedField(u.Object, int64(replicas), jsonPath(res.Custom.Scale.SpecReplicasPath)...)
}

// jsonPath splits a scale path such as .spec.replicas into its fields;
// CRD validation allows only such simple paths.
func jsonPath(p string) []string {
	return strings.Split(strings.TrimPrefix(p, "."), ".")
}

// customMedia reports whether typ is a media type custom resources are
// served in: JSON and YAML, not protobuf.
func customMedia(res *registry.Resource, typ string) bool {
	return res == nil || res.Custom == nil || typ != mediaProtobuf
}
