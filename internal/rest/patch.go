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
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/registry"
)

func (h *Handler) patch(w http.ResponseWriter, r *http.Request, t target) {
	ptype, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		ptype = ""
	}
	switch ptype {
	case mediaJSONPatch, mediaMergePatch, mediaSMPatch, mediaApplyYAML:
	default:
		h.rs.Error(w, r, apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "patch", t.res.GroupResource(), t.name,
			fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s, %s, %s, %s", mediaJSONPatch, mediaMergePatch, mediaApplyYAML, mediaSMPatch), 0, false))
		return
	}
	if ptype == mediaSMPatch && t.res.Custom != nil {
		// Custom resources have no patch strategy, as in kube-apiserver.
		h.rs.Error(w, r, apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "patch", t.res.GroupResource(), t.name,
			fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s, %s, %s", mediaJSONPatch, mediaMergePatch, mediaApplyYAML), 0, false))
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
			patched, err := applyPatch(ptype, curJSON, body, t.res.New())
			if err != nil {
				return nil, err
			}
			obj, err := h.decodeBody(withContentType(r, mediaJSON), t.res, patched, opts.FieldValidation)
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
		var pm map[string]interface{}
		if derr := json.Unmarshal(patch, &pm); derr != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", derr))
		}
		out, err = strategicpatch.StrategicMergePatch(doc, patch, schema)
	}
	if err != nil {
		return nil, apierrors.NewInvalid(schema.GetObjectKind().GroupVersionKind().GroupKind(), "", field.ErrorList{
			field.Invalid(field.NewPath("patch"), string(patch), err.Error())})
	}
	return out, nil
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
		return fm.Apply(cur, patchObj.DeepCopy(), opts.FieldManager, opts.Force)
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
