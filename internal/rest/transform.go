package rest

import (
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/registry"
)

// respond writes a resource or list, honouring the Accept header's "as="
// transformations that kubectl and metadata clients ask for: Table,
// PartialObjectMetadata and PartialObjectMetadataList.
func (h *Handler) respond(w http.ResponseWriter, r *http.Request, code int, res *registry.Resource, obj runtime.Object) {
	pretty := r.URL.Query().Get("pretty") == "true"
	for _, mt := range parseAccept(r.Header.Get("Accept")) {
		as := mt.as()
		if as == "" {
			if enc, typ := h.c.encoderFor(mt.typ, pretty); enc != nil && customMedia(res, typ) {
				h.rs.write(w, r, code, enc, typ, obj)
				return
			}
			continue
		}
		enc, typ := h.c.encoderFor(mt.typ, pretty)
		if enc == nil || !customMedia(res, typ) || mt.params["g"] != "meta.k8s.io" || (mt.params["v"] != "v1" && mt.params["v"] != "v1beta1") {
			continue
		}
		out, err := h.transform(r, as, res, obj)
		if err != nil {
			h.rs.Error(w, r, err)
			return
		}
		if out == nil {
			continue
		}
		h.rs.write(w, r, code, enc, typ, out)
		return
	}
	h.rs.Error(w, r, apierrors.NewGenericServerResponse(http.StatusNotAcceptable, "", res.GroupResource(), "",
		"only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf", 0, false))
}

// transform converts obj as the "as" parameter names; nil means the
// transformation does not apply to obj and the next Accept entry is tried.
func (h *Handler) transform(r *http.Request, as string, res *registry.Resource, obj runtime.Object) (runtime.Object, error) {
	isList := meta.IsListType(obj)
	switch as {
	case "Table":
		opts := metav1.TableOptions{}
		if err := h.c.params.DecodeParameters(r.URL.Query(), metav1.SchemeGroupVersion, &opts); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		return h.table(res, obj, opts)
	case "PartialObjectMetadata":
		if isList {
			return nil, nil
		}
		return partialMetadata(obj)
	case "PartialObjectMetadataList":
		if !isList {
			return nil, nil
		}
		items, err := meta.ExtractList(obj)
		if err != nil {
			return nil, err
		}
		out := &metav1.PartialObjectMetadataList{}
		if lm, err := meta.ListAccessor(obj); err == nil {
			out.ResourceVersion = lm.GetResourceVersion()
			out.Continue = lm.GetContinue()
			out.RemainingItemCount = lm.GetRemainingItemCount()
		}
		for _, it := range items {
			p, err := partialMetadata(it)
			if err != nil {
				return nil, err
			}
			out.Items = append(out.Items, *p)
		}
		return out, nil
	}
	return nil, nil
}

func partialMetadata(obj runtime.Object) (*metav1.PartialObjectMetadata, error) {
	var om metav1.ObjectMeta
	switch o := obj.(type) {
	case metav1.ObjectMetaAccessor:
		om = *o.GetObjectMeta().(*metav1.ObjectMeta).DeepCopy()
	case *unstructured.Unstructured:
		if m, ok := o.Object["metadata"].(map[string]any); ok {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &om); err != nil {
				return nil, fmt.Errorf("reading the metadata of %s: %w", o.GetName(), err)
			}
		}
	default:
		return nil, fmt.Errorf("%T has no object metadata", obj)
	}
	p := &metav1.PartialObjectMetadata{ObjectMeta: om}
	p.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata"))
	return p, nil
}

// defaultTable is kube-apiserver's table for types without a printer: the
// name and the creation time.
func defaultTable(obj runtime.Object, opts metav1.TableOptions) (*metav1.Table, error) {
	t := &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
		{Name: "Created At", Type: "date", Description: metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]},
	}}
	items := []runtime.Object{obj}
	if meta.IsListType(obj) {
		var err error
		if items, err = meta.ExtractList(obj); err != nil {
			return nil, err
		}
		if lm, err := meta.ListAccessor(obj); err == nil {
			t.ResourceVersion = lm.GetResourceVersion()
			t.Continue = lm.GetContinue()
			t.RemainingItemCount = lm.GetRemainingItemCount()
		}
	}
	for _, it := range items {
		m, err := meta.Accessor(it)
		if err != nil {
			return nil, err
		}
		row := metav1.TableRow{Cells: []interface{}{m.GetName(), m.GetCreationTimestamp().UTC().Format("2006-01-02T15:04:05Z")}}
		switch opts.IncludeObject {
		case metav1.IncludeObject:
			row.Object.Object = it
		case metav1.IncludeNone:
		default:
			p, err := partialMetadata(it)
			if err != nil {
				return nil, err
			}
			p.SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata"))
			row.Object.Object = p
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}
