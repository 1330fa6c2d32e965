package server

import (
	"fmt"
	"log/slog"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/portcullis/portcullis/internal/authn"
	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/rest"
)

// withRecovery turns a panic in a handler into a 500 for that request
// instead of a dead server. http.ErrAbortHandler keeps its meaning.
func withRecovery(next http.Handler, rs *rest.Responder, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v))
				rs.Error(w, r, apierrors.NewInternalError(fmt.Errorf("%v", v)))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// withRequestState derives the request's Info and gives it a State with
// an audit ID, returned to the client as Audit-Id.
func withRequestState(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("Audit-ID")
		if id == "" || len(id) > 128 {
			id = string(uuid.NewUUID())
		}
		st := &request.State{Info: request.Parse(r), AuditID: id}
		w.Header().Set("Audit-Id", id)
		next.ServeHTTP(w, r.WithContext(request.WithState(r.Context(), st)))
	})
}

// withAuthentication sets the request's user or answers 401.
func withAuthentication(next http.Handler, a authn.Authenticator, rs *rest.Responder, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := request.StateFrom(r.Context())
		u, ok, err := a.AuthenticateRequest(r)
		if err != nil {
			log.Debug("authentication failed", "err", err)
		}
		if !ok {
			rs.Error(w, r, apierrors.NewUnauthorized("Unauthorized"))
			return
		}
		st.User = u
		next.ServeHTTP(w, r)
	})
}
