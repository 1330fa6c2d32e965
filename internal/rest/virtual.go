package rest

import (
	"context"
	"net/http"

	"k8s.io/apimachinery/pkg/runtime"
)

// VirtualFunc answers the create of a virtual resource: obj is the
// decoded request, the result is returned to the client with 201.
type VirtualFunc func(ctx context.Context, obj runtime.Object, dryRun bool) (runtime.Object, error)

func (h *Handler) createVirtual(w http.ResponseWriter, r *http.Request, t target) {
	obj, opts, options, err := h.readObject(r, t.res)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	if t.res.GVR == legacyBindings {
		h.bindLegacy(w, r, t, obj, options)
		return
	}
	// kube-apiserver's create handler tracks the request's fields as for
	// any create; the reviews that answer with the request object show them.
	if fm := h.manager(t.res, ""); fm != nil {
		obj = fm.UpdateNoErrors(t.res.New(), obj, opts.FieldManager)
	}
	out, err := h.cfg.Virtual[t.res.GVR](r.Context(), obj, opts.DryRun)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	out.GetObjectKind().SetGroupVersionKind(t.res.GVK())
	h.respond(w, r, http.StatusCreated, t.res, out)
}
