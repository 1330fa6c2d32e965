package rest

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/request"
)

func (h *Handler) patch(w http.ResponseWriter, r *http.Request, t target) {
	ptype, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		ptype = ""
	}
	switch ptype {
	case mediaJSONPatch, mediaMergePatch, mediaSMPatch, mediaApplyYAML:
	default:
		// kube-apiserver's router has no PATCH route consuming the type.
		h.rs.Error(w, r, apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "", schema.GroupResource{}, "", "415: Unsupported Media Type", 0, false))
		return
	}
	if ptype == mediaSMPatch && t.res.Custom != nil {
		// Custom resources have no patch strategy, as in kube-apiserver.
		h.rs.Error(w, r, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType,
			Reason:  metav1.StatusReasonUnsupportedMediaType,
			Message: fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s, %s, %s", mediaJSONPatch, mediaMergePatch, mediaApplyYAML)}})
		return
	}
	apply := ptype == mediaApplyYAML
	opts, options, err := parseWriteOptions(r, apply)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	body, err := h.readBody(r)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	if t.sub == "scale" {
		if apply {
			h.rs.Error(w, r, apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "patch", t.res.GroupResource(), t.name,
				"server-side apply is not supported on the scale subresource", 0, false))
			return
		}
		h.patchScale(w, r, t, ptype, body, opts, options)
		return
	}
	var tryUpdate updateFunc
	if apply {
		tryUpdate, err = h.applier(t, body, opts)
		if err != nil {
			h.rs.Error(w, r, err)
			return
		}
	} else {
		tryUpdate = func(cur runtime.Object) (runtime.Object, error) {
			curJSON, err := json.Marshal(cur)
			if err != nil {
				return nil, apierrors.NewInternalError(err)
			}
			if ptype == mediaMergePatch && opts.FieldValidation != "Ignore" && json.Valid(body) {
				// kube-apiserver reads a merge patch as an object first.
				var v map[string]interface{}
				if err := json.Unmarshal(body, &v); err != nil {
					return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
				}
			}
			patched, err := applyPatch(ptype, curJSON, body, t.res.New())
			if err != nil {
				return nil, err
			}
			var obj runtime.Object
			if t.res.Custom != nil {
				obj, err = h.decodeBody(withContentType(r, mediaJSON), t.res, patched, opts.FieldValidation)
			} else {
				obj, err = h.decodePatched(r, t.res, ptype, body, patched, opts.FieldValidation)
			}
			if err != nil {
				return nil, err
			}
			m, _ := meta.Accessor(obj)
			if m.GetName() != t.name {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.GetName(), t.name))
			}
			return obj, checkNamespace(t, obj)
		}
	}
	out, created, err := h.updateObject(r.Context(), t, tryUpdate, opts, options, apply)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	h.respond(w, r, code, t.res, out)
}

// applyPatch applies a JSON, merge or strategic merge patch to doc.
// Malformed patches are 400; patches that cannot apply are 422, as in
// kube-apiserver, which words a JSON patch that cannot apply only as
// "the server rejected our request due to an error in our request".
func applyPatch(ptype string, doc, patch []byte, schema runtime.Object) ([]byte, error) {
	var out []byte
	var err error
	switch ptype {
	case mediaJSONPatch:
		if !json.Valid(patch) {
			return nil, apierrors.NewBadRequest("invalid JSON patch")
		}
		p, derr := jsonpatch.DecodePatch(patch)
		if derr != nil {
			var te *json.UnmarshalTypeError
			if errors.As(derr, &te) {
				derr = fmt.Errorf("json: cannot unmarshal %s into Go value of type []handlers.jsonPatchOp", te.Value)
			}
			return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", derr))
		}
		if out, err = p.Apply(doc); err != nil {
			return nil, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusUnprocessableEntity,
				Reason: metav1.StatusReasonInvalid, Message: "the server rejected our request due to an error in our request", Details: &metav1.StatusDetails{}}}
		}
		return out, nil
	case mediaMergePatch:
		if !json.Valid(patch) {
			return nil, apierrors.NewBadRequest("invalid JSON patch")
		}
		out, err = jsonpatch.MergePatch(doc, patch)
	case mediaSMPatch:
		if !json.Valid(patch) {
			return nil, apierrors.NewBadRequest("invalid JSON patch")
		}
		var pm map[string]interface{}
		if derr := json.Unmarshal(patch, &pm); derr != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", derr))
		}
		out, err = strategicpatch.StrategicMergePatch(doc, patch, schema)
		if err != nil {
			return nil, strategicPatchError(err)
		}
	}
	if err != nil {
		return nil, apierrors.NewInvalid(schema.GetObjectKind().GroupVersionKind().GroupKind(), "", field.ErrorList{
			field.Invalid(field.NewPath("patch"), string(patch), err.Error())})
	}
	return out, nil
}

// strategicPatchError answers a strategic merge patch that does not apply
// as kube-apiserver does: a malformed patch is 400, anything else (a list
// element without its merge key, say) a bare 500 with the library's text.
func strategicPatchError(err error) error {
	for _, bad := range []error{mergepatch.ErrBadJSONDoc, mergepatch.ErrNoListOfLists, mergepatch.ErrBadPatchFormatForPrimitiveList,
		mergepatch.ErrBadPatchFormatForRetainKeys, mergepatch.ErrBadPatchFormatForSetElementOrderList, mergepatch.ErrUnsupportedStrategicMergePatchFormat} {
		if errors.Is(err, bad) {
			return apierrors.NewBadRequest(err.Error())
		}
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error()}}
}

// applier returns the server-side apply update for body.
func (h *Handler) applier(t target, body []byte, opts writeOptions) (updateFunc, error) {
	js, err := yaml.YAMLToJSON(body)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding YAML: %v", err))
	}
	patchObj := &unstructured.Unstructured{}
	if err := patchObj.UnmarshalJSON(js); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
	}
	if gvk := patchObj.GroupVersionKind(); gvk.GroupVersion() == t.res.GVK().GroupVersion() && gvk.Kind != t.res.Kind {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid object type: %v", gvk))
	}
	if gvk := patchObj.GroupVersionKind(); gvk != t.res.GVK() {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", gvk.GroupVersion(), t.res.GVR.GroupVersion()))
	}
	if patchObj.GetName() != "" && patchObj.GetName() != t.name {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", patchObj.GetName(), t.name))
	}
	if t.res.Namespaced && patchObj.GetNamespace() != "" && patchObj.GetNamespace() != t.ns {
		return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	fm := h.manager(t.res, managerSub(t.sub))
	return func(cur runtime.Object) (runtime.Object, error) {
		if cur == nil {
			cur = newNamed(t.res, t.ns, t.name)
		}
		obj, err := fm.Apply(cur, patchObj.DeepCopy(), opts.FieldManager, opts.Force)
		var status apierrors.APIStatus
		if err != nil && !errors.As(err, &status) {
			// kube-apiserver answers the field manager's own errors (a
			// value of the wrong type) as a bare 500 with their text.
			return nil, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error()}}
		}
		return obj, err
	}, nil
}

func newNamed(res *registry.Resource, ns, name string) runtime.Object {
	obj := res.New()
	m, _ := meta.Accessor(obj)
	m.SetName(name)
	if res.Namespaced {
		m.SetNamespace(ns)
	}
	obj.GetObjectKind().SetGroupVersionKind(res.GVK())
	return obj
}

func withContentType(r *http.Request, ct string) *http.Request {
	r2 := r.Clone(r.Context())
	r2.Header.Set("Content-Type", ct)
	return r2
}

// decodePatched decodes a patched built-in object as kube-apiserver's
// patchers do: a JSON or merge patch result that does not decode is 422
// naming the patched JSON, a strategic merge result 422 naming the patch
// (as Go prints the map); unknown fields fail, warn or pass by the
// fieldValidation directive, and a strict failure is 422 the same way.
func (h *Handler) decodePatched(r *http.Request, res *registry.Resource, ptype string, patch, patched []byte, validation string) (runtime.Object, error) {
	strict, err := parseFieldValidation(validation)
	if err != nil {
		return nil, err
	}
	invalid := func(err error) error {
		value := string(patched)
		if ptype == mediaSMPatch {
			var pm map[string]interface{}
			_ = json.Unmarshal(patch, &pm)
			value = fmt.Sprintf("%+v", pm)
		}
		return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{field.Invalid(field.NewPath("patch"), value, err.Error())})
	}
	dec, err := h.c.decoderFor(mediaJSON, strict != "Ignore")
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	gvk := res.GVK()
	obj, got, err := dec.Decode(patched, &gvk, res.New())
	if err == nil && got != nil && got.Kind != gvk.Kind && got.GroupVersion() == gvk.GroupVersion() {
		// kube-apiserver decodes the other kind and fails converting it.
		return nil, invalid(fmt.Errorf("converting (%s.%s) to (%s.%s): unknown conversion", got.Version, got.Kind, internalPackage(gvk.Group), gvk.Kind))
	}
	if err != nil && !runtime.IsStrictDecodingError(err) {
		if ptype == mediaSMPatch {
			// kube-apiserver converts the patched map, not JSON.
			var m map[string]interface{}
			if json.Unmarshal(patched, &m) == nil {
				if cerr := runtime.DefaultUnstructuredConverter.FromUnstructured(m, res.New()); cerr != nil {
					return nil, invalid(cerr)
				}
			}
		}
		return nil, invalid(err)
	}
	if err != nil {
		if strict == "Strict" {
			return nil, invalid(err)
		}
		if st := request.StateFrom(r.Context()); st != nil {
			for _, e := range strictErrors(err) {
				st.AddWarning(e)
			}
		}
	}
	return obj, nil
}
