package rest

import (
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/storage"
)

// unsafeDeleteVerb is the permission an unsafe delete needs on top of delete.
const unsafeDeleteVerb = "unsafe-delete-ignore-read-errors"

// unsafeDelete removes an object the store holds but cannot read back (a
// value that no longer decrypts, or does not decode), as kube-apiserver's
// ignoreStoreReadErrorWithClusterBreakingPotential does: no admission, no
// finalizers, no preconditions, nothing else is told. It is refused for
// readable objects, and needs the verb unsafe-delete-ignore-read-errors on
// the resource.
func (h *Handler) unsafeDelete(w http.ResponseWriter, r *http.Request, t target, opts *metav1.DeleteOptions) {
	ctx := r.Context()
	st := request.StateFrom(ctx)
	st.AddAnnotation("apiserver.k8s.io/unsafe-delete-ignore-read-error", "")
	gr := t.res.GroupResource()
	if err := h.authorizeUnsafeDelete(r, t); err != nil {
		h.rs.Error(w, r, err)
		return
	}
	key := t.res.Key(t.ns, t.name)
	kv, err := h.store.Get(ctx, key)
	var corrupt *storage.CorruptError
	switch {
	case err == nil:
		if _, derr := h.o.Decode(t.res, kv); derr == nil {
			h.rs.Error(w, r, apierrors.NewConflict(gr, t.name, errors.New("unsafe deletion is not allowed because the object is decodable from storage")))
			return
		}
	case errors.As(err, &corrupt):
	default:
		h.rs.Error(w, r, objects.StorageError(err, gr, t.name))
		return
	}
	if len(opts.DryRun) == 0 {
		// The previous value does not read, which is the point: the
		// error saying so is expected.
		if _, _, err := h.store.Delete(ctx, key, kv.ModRevision); err != nil && !errors.As(err, &corrupt) {
			h.rs.Error(w, r, objects.StorageError(err, gr, t.name))
			return
		}
	}
	// kube-apiserver has no object to return and fills in the Status of
	// its delete handler: code 200 and the kind, not the resource.
	h.rs.Object(w, r, http.StatusOK, &metav1.Status{
		Status:  metav1.StatusSuccess,
		Code:    http.StatusOK,
		Details: &metav1.StatusDetails{Name: t.name, Kind: t.res.GVK().Kind},
	})
}

func (h *Handler) authorizeUnsafeDelete(r *http.Request, t target) error {
	gr := t.res.GroupResource()
	if t.sub != "" {
		return apierrors.NewForbidden(gr, t.name, errors.New("ignoreStoreReadErrorWithClusterBreakingPotential delete option is not allowed on a subresource or non-resource request"))
	}
	if h.cfg.Authorizer == nil {
		return apierrors.NewInternalError(errors.New("no authorizer provided, unable to authorize unsafe delete"))
	}
	st := request.StateFrom(r.Context())
	decision, reason, err := h.cfg.Authorizer.Authorize(r.Context(), authorizer.AttributesRecord{
		User:            st.User,
		Verb:            unsafeDeleteVerb,
		Namespace:       t.ns,
		Name:            t.name,
		APIGroup:        t.res.GVR.Group,
		APIVersion:      t.res.GVR.Version,
		Resource:        t.res.GVR.Resource,
		ResourceRequest: true,
	})
	switch {
	case err != nil:
		return apierrors.NewForbidden(gr, t.name, fmt.Errorf("error while checking permission for %q, %w", unsafeDeleteVerb, err))
	case decision != authorizer.DecisionAllow:
		return apierrors.NewForbidden(gr, t.name, fmt.Errorf("not permitted to do %q, reason: %s", unsafeDeleteVerb, reason))
	}
	return nil
}
