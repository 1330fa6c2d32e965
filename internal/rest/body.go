package rest

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/portcullis/portcullis/internal/audit"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/request"
)

// readBody reads the request body up to the configured limit; larger
// bodies give 413 as in kube-apiserver.
func (h *Handler) readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	limit := h.cfg.MaxRequestBytes
	if r.ContentLength > limit {
		return nil, tooLarge(limit)
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge(limit)
		}
		return nil, apierrors.NewBadRequest(fmt.Sprintf("error reading request body: %v", err))
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(limit)
	}
	audit.RecorderFrom(r.Context()).SetRequestObject(data)
	return data, nil
}

func tooLarge(limit int64) error {
	return apierrors.NewRequestEntityTooLargeError(fmt.Sprintf("limit is %d", limit))
}

// decodeBody decodes an object of res's kind from body under the
// fieldValidation directive (Strict, Warn or Ignore; Warn when unset, as
// kube-apiserver defaults it).
func (h *Handler) decodeBody(r *http.Request, res *registry.Resource, body []byte, validation string) (runtime.Object, error) {
	strict, err := parseFieldValidation(validation)
	if err != nil {
		return nil, err
	}
	if res.Custom != nil {
		return h.decodeCustom(r, res, body, strict)
	}
	var dec runtime.Decoder
	dec, err = h.c.decoderFor(r.Header.Get("Content-Type"), strict != "Ignore")
	if err != nil {
		return nil, unsupportedMediaType(r.Header.Get("Content-Type"))
	}
	gvk := res.GVK()
	obj, got, err := dec.Decode(body, &gvk, res.New())
	if err != nil && !runtime.IsStrictDecodingError(err) {
		return nil, decodeError(res.Kind, got, err, body)
	}
	if err != nil {
		if strict == "Strict" {
			return nil, decodeError(res.Kind, got, err, body)
		}
		if st := request.StateFrom(r.Context()); st != nil {
			for _, e := range strictErrors(err) {
				st.AddWarning(e)
			}
		}
	}
	if rec := audit.RecorderFrom(r.Context()); rec != nil && dec == h.c.proto {
		// The audit event holds JSON: re-encode what protobuf clients sent.
		if js, err := h.c.encode(h.c.json, obj); err == nil {
			rec.SetRequestObject(js)
		}
	}
	if got != nil && got.Kind != gvk.Kind && got.GroupVersion() == gvk.GroupVersion() {
		// kube-apiserver decodes the other kind and fails converting it.
		return nil, decodeError(res.Kind, got, fmt.Errorf("converting (%s.%s) to (%s.%s): unknown conversion",
			got.Version, got.Kind, internalPackage(gvk.Group), gvk.Kind), body)
	}
	if got != nil && (got.Kind != gvk.Kind || got.GroupVersion() != gvk.GroupVersion()) {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", got.GroupVersion(), gvk.GroupVersion()))
	}
	return obj, nil
}

// decodeError is kube-apiserver's answer to a body it cannot decode as
// kind: naming the kind and version the body claimed when it got that far,
// else a summary of the body.
func decodeError(kind string, got *schema.GroupVersionKind, err error, body []byte) error {
	if got != nil && got.Kind != "" {
		return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", got.Kind, got.Version, kind, err))
	}
	return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", kind, err, summarizeBody(body, 30)))
}

// summarizeBody shows the start of a body in an error: JSON as text,
// anything else in hex.
func summarizeBody(b []byte, max int) string {
	switch {
	case len(b) == 0:
		return "<empty>"
	case b[0] == '{':
		if len(b) > max {
			return string(b[:max]) + " ..."
		}
		return string(b)
	default:
		if len(b) > max {
			return hex.EncodeToString(b[:max]) + " ..."
		}
		return hex.EncodeToString(b)
	}
}

// internalPackage is the Go package of a group's internal types in
// kube-apiserver, which its conversion errors name.
func internalPackage(group string) string {
	if group == "" || group == "events.k8s.io" {
		return "core"
	}
	first, _, _ := strings.Cut(group, ".")
	return first
}

func strictErrors(err error) []string {
	var sde interface{ Errors() []error }
	if errors.As(err, &sde) {
		var out []string
		for _, e := range sde.Errors() {
			out = append(out, e.Error())
		}
		return out
	}
	return []string{err.Error()}
}

func parseFieldValidation(v string) (string, error) {
	switch v {
	case "", "Warn":
		return "Warn", nil
	case "Strict", "Ignore":
		return v, nil
	}
	return "", apierrors.NewBadRequest(fmt.Sprintf("invalid fieldValidation directive: %s", v))
}

// writeOptions are the query parameters of create, update and patch.
type writeOptions struct {
	DryRun          bool
	FieldManager    string
	FieldValidation string
	Force           bool
}

func parseWriteOptions(r *http.Request, apply bool) (writeOptions, runtime.Object, error) {
	q := r.URL.Query()
	var o writeOptions
	o.DryRun = len(q["dryRun"]) > 0
	o.FieldManager = q.Get("fieldManager")
	o.FieldValidation = q.Get("fieldValidation")
	var force *bool
	if f := q.Get("force"); f != "" {
		o.Force = f == "true"
		force = &o.Force
	}
	// kube-apiserver validates the options of each verb before the body:
	// 422 naming CreateOptions, UpdateOptions or PatchOptions.
	var errs field.ErrorList
	kind := "CreateOptions"
	switch r.Method {
	case http.MethodPost:
		errs = metavalidation.ValidateCreateOptions(&metav1.CreateOptions{DryRun: q["dryRun"], FieldManager: o.FieldManager, FieldValidation: o.FieldValidation})
	case http.MethodPut:
		kind = "UpdateOptions"
		errs = metavalidation.ValidateUpdateOptions(&metav1.UpdateOptions{DryRun: q["dryRun"], FieldManager: o.FieldManager, FieldValidation: o.FieldValidation})
	default:
		kind = "PatchOptions"
		ptype := types.MergePatchType
		if apply {
			ptype = types.ApplyPatchType
		}
		errs = metavalidation.ValidatePatchOptions(&metav1.PatchOptions{DryRun: q["dryRun"], Force: force, FieldManager: o.FieldManager, FieldValidation: o.FieldValidation}, ptype)
	}
	if len(errs) > 0 {
		return o, nil, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: kind}, "", errs)
	}
	// Admission sees the options as the client sent them, before the
	// field manager defaults to the user agent.
	sent := o.FieldManager
	if o.FieldManager == "" {
		o.FieldManager = managerFromUserAgent(r.UserAgent())
	}
	var dry []string
	if o.DryRun {
		dry = []string{metav1.DryRunAll}
	}
	var opts runtime.Object
	switch r.Method {
	case http.MethodPost:
		opts = &metav1.CreateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "CreateOptions"}, DryRun: dry, FieldManager: sent, FieldValidation: o.FieldValidation}
	case http.MethodPut:
		opts = &metav1.UpdateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "UpdateOptions"}, DryRun: dry, FieldManager: sent, FieldValidation: o.FieldValidation}
	default:
		// kube-apiserver's admission sees a patch as the update it is
		// (patchToUpdateOptions); createOptions turns it into a create.
		opts = &metav1.UpdateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "UpdateOptions"}, DryRun: dry, FieldManager: sent, FieldValidation: o.FieldValidation}
	}
	return o, opts, nil
}

// createOptions is the CreateOptions admission sees when an update or a
// patch creates the object (kube-apiserver's updateToCreateOptions and
// patchToCreateOptions).
func createOptions(options runtime.Object) runtime.Object {
	uo, ok := options.(*metav1.UpdateOptions)
	if !ok {
		return options
	}
	return &metav1.CreateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "CreateOptions"},
		DryRun: uo.DryRun, FieldManager: uo.FieldManager, FieldValidation: uo.FieldValidation}
}

// managerFromUserAgent is kube-apiserver's default field manager: the user
// agent up to its first "/", bounded to 128 bytes.
func managerFromUserAgent(ua string) string {
	if i := strings.Index(ua, "/"); i >= 0 {
		ua = ua[:i]
	}
	if len(ua) > 128 {
		ua = ua[:128]
	}
	return ua
}

func unsupportedMediaType(ct string) error {
	return apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "", schema.GroupResource{}, "",
		fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf (got %q)", ct), 0, false)
}

// readObject parses a write's options and decodes its body as an object of
// res: the common start of create, update and the virtual creates.
func (h *Handler) readObject(r *http.Request, res *registry.Resource) (runtime.Object, writeOptions, runtime.Object, error) {
	opts, options, err := parseWriteOptions(r, false)
	if err != nil {
		return nil, opts, nil, err
	}
	body, err := h.readBody(r)
	if err != nil {
		return nil, opts, nil, err
	}
	obj, err := h.decodeBody(r, res, body, opts.FieldValidation)
	return obj, opts, options, err
}
