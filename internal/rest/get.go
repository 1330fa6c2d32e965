package rest

import (
	"net/http"
)

func (h *Handler) get(w http.ResponseWriter, r *http.Request, t target) {
	obj, _, err := h.o.Read(r.Context(), t.res, t.ns, t.name)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	if t.sub == "scale" {
		scale, err := h.toScale(t.res, obj)
		if err != nil {
			h.rs.Error(w, r, err)
			return
		}
		h.rs.Object(w, r, http.StatusOK, scale)
		return
	}
	h.respond(w, r, http.StatusOK, t.res, obj)
}
