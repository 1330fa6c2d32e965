package rest

import (
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func (h *Handler) get(w http.ResponseWriter, r *http.Request, t target) {
	if _, err := resourceVersionValue(r.URL.Query().Get("resourceVersion")); err != nil {
		// kube-apiserver's storage fails such a read with a bare 500.
		h.rs.Error(w, r, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error()}})
		return
	}
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
