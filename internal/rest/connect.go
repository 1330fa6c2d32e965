package rest

import (
	"context"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/registry"
)

// ConnectorKey names a connector subresource.
type ConnectorKey struct {
	Resource    schema.GroupVersionResource
	Subresource string
}

// ConnectorFunc answers a POST to a connector subresource of the object
// namespace/name with the decoded body.
type ConnectorFunc func(ctx context.Context, namespace, name string, body runtime.Object, options *metav1.CreateOptions) (runtime.Object, error)

// connectorName returns sub when res has a connector of that name, and
// something no subresource equals otherwise.
func connectorName(res *registry.Resource, sub string) string {
	for _, c := range res.Connectors {
		if c.Name == sub {
			return sub
		}
	}
	return "\x00"
}

func (h *Handler) connect(w http.ResponseWriter, r *http.Request, t target) {
	var conn registry.Connector
	for _, c := range t.res.Connectors {
		if c.Name == t.sub {
			conn = c
		}
	}
	fn := h.cfg.Connectors[ConnectorKey{t.res.GVR, t.sub}]
	if fn == nil {
		switch (ConnectorKey{t.res.GVR, t.sub}) {
		case evictionKey:
			fn = h.evict
		case bindingKey:
			fn = h.bind
		}
	}
	if fn == nil {
		h.notFound(w, r)
		return
	}
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
	dec, err := h.c.decoderFor(r.Header.Get("Content-Type"), false)
	if err != nil {
		h.rs.Error(w, r, unsupportedMediaType(r.Header.Get("Content-Type")))
		return
	}
	in := conn.New()
	if _, _, err := dec.Decode(body, &conn.Kind, in); err != nil {
		h.rs.Error(w, r, apierrors.NewBadRequest(fmt.Sprintf("error decoding %s: %v", conn.Kind.Kind, err)))
		return
	}
	// As kube-apiserver's create handler: the field manager records the
	// body as the client's (an Update of the subresource), then the
	// connector admits it with the request's CreateOptions.
	if fm := h.managers[managerKey{t.res.GVR, t.sub}]; fm != nil {
		in = fm.UpdateNoErrors(conn.New(), in, opts.FieldManager)
	}
	co, _ := options.(*metav1.CreateOptions)
	if co == nil {
		co = &metav1.CreateOptions{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "CreateOptions"}}
	}
	out, err := fn(r.Context(), t.ns, t.name, in, co)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	// A connector answers its own kind unless it says otherwise (a Status).
	if out.GetObjectKind().GroupVersionKind().Empty() {
		out.GetObjectKind().SetGroupVersionKind(conn.Kind)
	}
	h.rs.Object(w, r, http.StatusCreated, out)
}
