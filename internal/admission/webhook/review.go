package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strconv"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/matching"
)

var (
	v1ReviewGVK      = admissionv1.SchemeGroupVersion.WithKind("AdmissionReview")
	v1beta1ReviewGVK = admissionv1beta1.SchemeGroupVersion.WithKind("AdmissionReview")
)

// reviewVersion picks the first AdmissionReview version the webhook
// accepts that portcullis speaks.
func reviewVersion(versions []string) (string, error) {
	for _, v := range versions {
		if v == "v1" || v == "v1beta1" {
			return v, nil
		}
	}
	return "", errors.New("webhook does not accept known AdmissionReview versions (v1, v1beta1)")
}

// encodeReview returns the AdmissionReview body for one call.
func encodeReview(a *admission.Attributes, uid types.UID, version string) ([]byte, error) {
	req := celenv.NewAdmissionRequest(a, a.Resource, a.Kind)
	req.UID = uid
	var err error
	if req.Object.Raw, err = encodeObject(a.Object, a.Kind); err != nil {
		return nil, fmt.Errorf("encoding object: %w", err)
	}
	if req.OldObject.Raw, err = encodeObject(a.OldObject, a.Kind); err != nil {
		return nil, fmt.Errorf("encoding oldObject: %w", err)
	}
	if opts := req.Options.Object; opts != nil {
		if req.Options.Raw, err = json.Marshal(opts); err != nil {
			return nil, fmt.Errorf("encoding options: %w", err)
		}
		req.Options.Object = nil
	}
	if version == "v1beta1" {
		r := admissionv1beta1.AdmissionRequest{
			UID: req.UID, Kind: req.Kind, Resource: req.Resource, SubResource: req.SubResource,
			RequestKind: req.RequestKind, RequestResource: req.RequestResource, RequestSubResource: req.RequestSubResource,
			Name: req.Name, Namespace: req.Namespace, Operation: admissionv1beta1.Operation(req.Operation),
			UserInfo: req.UserInfo, Object: req.Object, OldObject: req.OldObject, DryRun: req.DryRun, Options: req.Options,
		}
		review := admissionv1beta1.AdmissionReview{Request: &r}
		review.SetGroupVersionKind(v1beta1ReviewGVK)
		return json.Marshal(&review)
	}
	review := admissionv1.AdmissionReview{Request: req}
	review.SetGroupVersionKind(v1ReviewGVK)
	return json.Marshal(&review)
}

// encodeObject encodes obj as JSON with its apiVersion and kind (nil for
// no object).
func encodeObject(obj runtime.Object, gvk schema.GroupVersionKind) ([]byte, error) {
	if matching.IsNil(obj) {
		return nil, nil
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		content := u.Object
		if u.GetKind() == "" && u.GetAPIVersion() == "" && !gvk.Empty() {
			content = maps.Clone(content)
			content["apiVersion"], content["kind"] = gvk.GroupVersion().String(), gvk.Kind
		}
		return json.Marshal(content)
	}
	data, err := json.Marshal(obj)
	if err != nil || !obj.GetObjectKind().GroupVersionKind().Empty() || gvk.Empty() {
		return data, err
	}
	// A typed object without its type meta (as the REST layer holds it):
	// write kind and apiVersion in front of the fields, where they would
	// be, rather than copy the whole object to set them.
	head := `{"kind":` + strconv.Quote(gvk.Kind) + `,"apiVersion":` + strconv.Quote(gvk.GroupVersion().String())
	out := make([]byte, 0, len(head)+len(data))
	out = append(out, head...)
	if len(data) > 2 {
		out = append(out, ',')
	}
	return append(out, data[1:]...), nil
}

// decodeResponse decodes and checks a webhook's answer, with
// kube-apiserver's texts. Garbage is an error, never a panic.
func decodeResponse(body []byte, version string, uid types.UID, mutating bool) (*admissionv1.AdmissionResponse, error) {
	if version == "v1beta1" {
		var r admissionv1beta1.AdmissionReview
		if err := json.Unmarshal(body, &r); err != nil {
			return nil, err
		}
		if r.Response == nil {
			return nil, errors.New("webhook response was absent")
		}
		out := &admissionv1.AdmissionResponse{
			UID: r.Response.UID, Allowed: r.Response.Allowed, Result: r.Response.Result,
			AuditAnnotations: r.Response.AuditAnnotations, Warnings: r.Response.Warnings,
		}
		// v1beta1 never checked the uid or the patch type; a patch is JSONPatch.
		if mutating && len(r.Response.Patch) > 0 {
			pt := admissionv1.PatchTypeJSONPatch
			out.Patch, out.PatchType = r.Response.Patch, &pt
		}
		return out, nil
	}
	var r admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	if r.Response == nil {
		return nil, errors.New("webhook response was absent")
	}
	if r.Response.UID != uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, r.Response.UID)
	}
	if gvk := r.GroupVersionKind(); gvk != v1ReviewGVK {
		return nil, fmt.Errorf("expected webhook response of %v, got %v", v1ReviewGVK.String(), gvk.String())
	}
	resp := r.Response
	if mutating {
		switch {
		case len(resp.Patch) > 0 && resp.PatchType == nil:
			return nil, errors.New("webhook returned response.patch but not response.patchType")
		case len(resp.Patch) == 0 && resp.PatchType != nil:
			return nil, errors.New("webhook returned response.patchType but not response.patch")
		case resp.PatchType != nil && *resp.PatchType == "":
			return nil, fmt.Errorf("webhook returned invalid response.patchType of %q", *resp.PatchType)
		}
	} else {
		if len(resp.Patch) > 0 {
			return nil, errors.New("validating webhook may not return response.patch")
		}
		if resp.PatchType != nil {
			return nil, errors.New("validating webhook may not return response.patchType")
		}
	}
	return resp, nil
}

// newObjectLike returns an empty object of obj's type for decoding a
// patched document.
func newObjectLike(obj runtime.Object, scheme *runtime.Scheme, gvk schema.GroupVersionKind) (runtime.Object, error) {
	if _, ok := obj.(*unstructured.Unstructured); ok {
		return &unstructured.Unstructured{}, nil
	}
	if scheme != nil && !gvk.Empty() {
		if out, err := scheme.New(gvk); err == nil && reflect.TypeOf(out) == reflect.TypeOf(obj) {
			return out, nil
		}
	}
	t := reflect.TypeOf(obj)
	if t.Kind() != reflect.Pointer {
		return nil, fmt.Errorf("cannot create an object of type %T", obj)
	}
	out, ok := reflect.New(t.Elem()).Interface().(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("cannot create an object of type %T", obj)
	}
	return out, nil
}
