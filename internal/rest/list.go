package rest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metainternal "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalvalidation "k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// selection is a parsed label and field selector pair.
type selection struct {
	labels labels.Selector
	fields fields.Selector
}

func (s selection) everything() bool { return s.labels.Empty() && s.fields.Empty() }

func (h *Handler) parseSelection(res *registry.Resource, opts *metav1.ListOptions) (selection, error) {
	sel := selection{labels: labels.Everything(), fields: fields.Everything()}
	if opts.LabelSelector != "" {
		ls, err := labels.Parse(opts.LabelSelector)
		if err != nil {
			return sel, apierrors.NewBadRequest(err.Error())
		}
		sel.labels = ls
	}
	if opts.FieldSelector != "" {
		fs, err := fields.ParseSelector(opts.FieldSelector)
		if err != nil {
			return sel, apierrors.NewBadRequest(err.Error())
		}
		var known map[string]string
		if res.Fields != nil {
			known = res.Fields(res.New())
		}
		for _, req := range fs.Requirements() {
			if res.Custom != nil {
				if _, _, err := res.Custom.Schema.ConvertFieldLabel(req.Field, req.Value); err != nil {
					return sel, apierrors.NewBadRequest(err.Error())
				}
				continue
			}
			if req.Field == "metadata.name" || req.Field == "metadata.namespace" {
				continue
			}
			if _, ok := known[req.Field]; !ok {
				if res.Fields == nil {
					// kube-apiserver's DefaultMetaV1FieldSelectorConversion,
					// for kinds with no field labels of their own.
					return sel, apierrors.NewBadRequest(fmt.Sprintf("%q is not a known field selector: only %q, %q", req.Field, "metadata.name", "metadata.namespace"))
				}
				if res.GVR.Group == "batch" {
					// batch/v1's own field label conversion words it so.
					return sel, apierrors.NewBadRequest(fmt.Sprintf("field label %q not supported for %s", req.Field, res.Kind))
				}
				return sel, apierrors.NewBadRequest(fmt.Sprintf("field label not supported: %s", req.Field))
			}
		}
		sel.fields = fs
	}
	return sel, nil
}

// matches reports whether obj passes the selectors.
func (s selection) matches(res *registry.Resource, obj runtime.Object) bool {
	if s.everything() {
		return true
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	if !s.labels.Matches(labels.Set(m.GetLabels())) {
		return false
	}
	if s.fields.Empty() {
		return true
	}
	set := fields.Set{"metadata.name": m.GetName()}
	if res.Namespaced {
		set["metadata.namespace"] = m.GetNamespace()
	}
	if res.Fields != nil {
		for k, v := range res.Fields(obj) {
			set[k] = v
		}
	}
	return s.fields.Matches(set)
}

// continueToken is the opaque continue value, in kube-apiserver's shape.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

func encodeContinue(rev int64, nextKey, prefix string) string {
	b, _ := json.Marshal(continueToken{APIVersion: "meta.k8s.io/v1", ResourceVersion: rev, StartKey: strings.TrimPrefix(nextKey, prefix)})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeContinue(s, prefix string) (int64, string, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, "", fmt.Errorf("continue key is not valid: %w", err)
	}
	var tok continueToken
	if err := json.Unmarshal(b, &tok); err != nil {
		return 0, "", fmt.Errorf("continue key is not valid: %w", err)
	}
	if tok.APIVersion != "meta.k8s.io/v1" {
		return 0, "", fmt.Errorf("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	}
	if tok.ResourceVersion <= 0 || strings.Contains(tok.StartKey, "..") || strings.HasPrefix(tok.StartKey, "/") {
		return 0, "", fmt.Errorf("continue key is not valid: invalid start key")
	}
	return tok.ResourceVersion, prefix + tok.StartKey, nil
}

// parseRV reads a list's or watch's resourceVersion; a malformed one is
// 400 in kube-apiserver's words.
func parseRV(s string) (int64, error) {
	rv, err := resourceVersionValue(s)
	if err != nil {
		return 0, apierrors.NewBadRequest("invalid resource version: " + err.Error())
	}
	return rv, nil
}

// resourceVersionValue parses a resourceVersion parameter ("" is 0) and
// words a malformed one as kube-apiserver's storage does.
func resourceVersionValue(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	rv, err := strconv.ParseUint(s, 10, 64)
	if err == nil && rv > math.MaxInt64 {
		err = &strconv.NumError{Func: "ParseUint", Num: s, Err: strconv.ErrRange}
	}
	if err != nil {
		return 0, fmt.Errorf("resourceVersion: Invalid value: %q: %w", s, err)
	}
	return int64(rv), nil
}

func (h *Handler) decodeListOptions(r *http.Request) (*metav1.ListOptions, error) {
	opts := &metav1.ListOptions{}
	if err := h.c.params.DecodeParameters(r.URL.Query(), metav1.Unversioned, opts); err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return opts, nil
}

func (h *Handler) list(w http.ResponseWriter, r *http.Request, t target) {
	opts, err := h.decodeListOptions(r)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	// kube-apiserver's validation of a list's options (only a watch sends
	// initial events; resourceVersionMatch needs a resourceVersion).
	if errs := metainternalvalidation.ValidateListOptions(&metainternal.ListOptions{
		ResourceVersion: opts.ResourceVersion, ResourceVersionMatch: opts.ResourceVersionMatch,
		Continue: opts.Continue, SendInitialEvents: opts.SendInitialEvents,
	}, true); len(errs) > 0 {
		h.rs.Error(w, r, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", errs))
		return
	}
	list, err := h.listObjects(r.Context(), t.res, t.ns, opts)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	h.respond(w, r, http.StatusOK, t.res, list)
}

// listObjects serves a list with kube-apiserver's resourceVersion,
// resourceVersionMatch, limit and continue semantics.
func (h *Handler) listObjects(ctx context.Context, res *registry.Resource, ns string, opts *metav1.ListOptions) (runtime.Object, error) {
	sel, err := h.parseSelection(res, opts)
	if err != nil {
		return nil, err
	}
	if opts.Limit < 0 {
		// kube-apiserver lists everything for a limit below one.
		opts.Limit = 0
	}
	prefix := res.NamespacePrefix(ns)
	rv, err := parseRV(opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	var readRev int64
	startKey := prefix
	switch {
	case opts.Continue != "":
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return nil, apierrors.NewBadRequest("specifying resource version is not allowed when using continue")
		}
		readRev, startKey, err = decodeContinue(opts.Continue, prefix)
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid continue token: %v", err))
		}
	case opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact:
		if rv == 0 {
			return nil, apierrors.NewBadRequest(`resourceVersionMatch "Exact" is forbidden for resourceVersion "0" or unset`)
		}
		readRev = rv
	case opts.ResourceVersionMatch != "" && opts.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("unsupported resourceVersionMatch %q", opts.ResourceVersionMatch))
	case opts.ResourceVersionMatch == metav1.ResourceVersionMatchNotOlderThan && opts.ResourceVersion == "":
		return nil, apierrors.NewBadRequest(`resourceVersionMatch is forbidden unless resourceVersion is provided`)
	case opts.ResourceVersionMatch == "" && rv > 0 && opts.Limit > 0:
		// Legacy semantics: a paginated list at a resourceVersion is exact.
		readRev = rv
	}
	if readRev == 0 && rv > 0 {
		if err := h.waitForRevision(ctx, rv); err != nil {
			return nil, err
		}
	}

	list := res.NewList()
	var items []runtime.Object
	var listRev, remaining int64
	var cont string
	for {
		page := opts.Limit
		if page > 0 && !sel.everything() {
			// Selectors discard some values: read ahead to fill the page.
			page = max(page, 100)
		}
		out, err := h.store.List(ctx, prefix, storage.ListOptions{Revision: readRev, Limit: page, StartKey: startKey})
		if err != nil {
			return nil, listStorageError(err, res.GroupResource(), readRev)
		}
		listRev, readRev = out.Revision, out.Revision
		// One page is decoded at once: its custom resources are converted
		// in one call of their CRD's conversion webhook.
		objs, err := h.o.DecodeList(ctx, res, out.KVs)
		if err != nil {
			return nil, codecError(err)
		}
		for i, kv := range out.KVs {
			obj := objs[i]
			if !sel.matches(res, obj) {
				continue
			}
			items = append(items, obj)
			if opts.Limit > 0 && int64(len(items)) == opts.Limit {
				last := i == len(out.KVs)-1
				if !last || out.More {
					cont = encodeContinue(listRev, kv.Key+"\x00", prefix)
					if sel.everything() {
						remaining = out.Remaining + int64(len(out.KVs)-1-i)
					}
				}
				goto done
			}
		}
		if !out.More || len(out.KVs) == 0 {
			break
		}
		startKey = out.KVs[len(out.KVs)-1].Key + "\x00"
	}
done:
	if res.Custom == nil {
		// The items of a built-in list carry no apiVersion and kind, as
		// kube-apiserver encodes them (custom resources keep theirs).
		for _, it := range items {
			it.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		}
	}
	if err := meta.SetList(list, items); err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	lm, _ := meta.ListAccessor(list)
	lm.SetResourceVersion(strconv.FormatInt(listRev, 10))
	lm.SetContinue(cont)
	if cont != "" && remaining > 0 {
		lm.SetRemainingItemCount(&remaining)
	}
	list.GetObjectKind().SetGroupVersionKind(res.GVR.GroupVersion().WithKind(res.Kind + "List"))
	return list, nil
}

func listStorageError(err error, gr schema.GroupResource, rev int64) error {
	if errors.Is(err, storage.ErrCompacted) {
		return apierrors.NewResourceExpired("The resourceVersion for the provided list is too old.")
	}
	if errors.Is(err, storage.ErrFutureRevision) {
		return tooLargeRV(rev)
	}
	return objects.StorageError(err, gr, "")
}
