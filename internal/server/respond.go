package server

import (
	"encoding/json"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/rest"
)

func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(data)
}

func notFound(w http.ResponseWriter, r *http.Request, rs *rest.Responder) {
	err := apierrors.NewNotFound(schema.GroupResource{}, "")
	err.ErrStatus.Message = "the server could not find the requested resource"
	err.ErrStatus.Details = nil
	rs.Error(w, r, err)
}
