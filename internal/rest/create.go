package rest

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/storage"
)

func (h *Handler) create(w http.ResponseWriter, r *http.Request, t target) {
	obj, opts, options, err := h.readObject(r, t.res)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	if err := checkNamespace(t, obj); err != nil {
		h.rs.Error(w, r, err)
		return
	}
	out, err := h.createObject(r.Context(), t.res, obj, nil, opts, options)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	h.respond(w, r, http.StatusCreated, t.res, out)
}

// checkNamespace fills in the request's namespace on obj or rejects a
// different one, as kube-apiserver does.
func checkNamespace(t target, obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	if !t.res.Namespaced {
		m.SetNamespace("")
		return nil
	}
	switch m.GetNamespace() {
	case "":
		m.SetNamespace(t.ns)
	case t.ns:
	default:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}

// createObject runs a new object through defaulting, managed fields,
// admission and validation and stores it. live is the empty object an
// apply started from (its managed fields are already set), or nil.
func (h *Handler) createObject(ctx context.Context, res *registry.Resource, obj runtime.Object, applied runtime.Object, opts writeOptions, options runtime.Object) (runtime.Object, error) {
	if res.Custom != nil && res.Custom.Terminating {
		return nil, apierrors.NewMethodNotSupported(res.GroupResource(), "create")
	}
	settleCustom(res, obj)
	h.defaultObject(res, obj)
	if ds, ok := obj.(*appsv1.DaemonSet); ok {
		setTemplateGeneration(ds)
	}
	if applied == nil {
		fm := h.manager(res, "")
		obj = fm.UpdateNoErrors(res.New(), obj, opts.FieldManager)
	}
	// Mutating admission sees the object as decoded: as in kube-apiserver,
	// the system fields (uid, creationTimestamp, a generated name) and the
	// strategy's preparation come after it.
	attrs := h.attributes(ctx, res, "", admission.Create, obj, nil, options, opts.DryRun)
	if err := h.cfg.Admission.Admit(ctx, attrs); err != nil {
		return nil, err
	}
	obj = attrs.Object
	m, _ := meta.Accessor(obj)
	generated := m.GetName() == "" && m.GetGenerateName() != ""
	if generated {
		m.SetName(generateName(m.GetGenerateName()))
		attrs.Name = m.GetName() // validating admission sees it
	}
	if m.GetName() == "" {
		return nil, apierrors.NewInvalid(res.GroupKind(), "", field.ErrorList{
			field.Required(field.NewPath("metadata", "name"), "name or generateName is required")})
	}
	prepareForCreate(res, obj, h.cfg.Now())
	settleAdmitted(res, obj)
	if errs := h.validateCreate(ctx, res, obj); len(errs) > 0 {
		return nil, apierrors.NewInvalid(res.GroupKind(), m.GetName(), errs)
	}
	if err := h.cfg.Admission.Validate(ctx, attrs); err != nil {
		return nil, err
	}
	pruneAdmitted(res, obj)
	if opts.DryRun {
		// A dry run answers what the write would: AlreadyExists included.
		if _, err := h.store.Get(ctx, res.Key(m.GetNamespace(), m.GetName())); err == nil {
			return nil, apierrors.NewAlreadyExists(res.GroupResource(), m.GetName())
		} else if !errors.Is(err, storage.ErrNotFound) {
			return nil, objects.StorageError(err, res.GroupResource(), m.GetName())
		}
		return obj, nil
	}
	for attempt := 0; ; attempt++ {
		data, err := h.o.EncodeContext(ctx, res, obj)
		if err != nil {
			return nil, codecError(err)
		}
		kv, err := h.store.Create(ctx, res.Key(m.GetNamespace(), m.GetName()), data)
		if errors.Is(err, storage.ErrKeyExists) && generated && attempt < 7 {
			m.SetName(generateName(m.GetGenerateName()))
			attrs.Name = m.GetName()
			continue
		}
		if err != nil {
			return nil, objects.StorageError(err, res.GroupResource(), m.GetName())
		}
		setRV(obj, kv.ModRevision)
		return h.asStored(ctx, res, obj, data, kv.ModRevision), nil
	}
}

// generateName appends five random characters from kube-apiserver's
// alphabet (no vowels, no confusable digits) to base, trimmed so the result
// fits a 63-character name.
func generateName(base string) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	const maxBase = 63 - 5
	if len(base) > maxBase {
		base = base[:maxBase]
	}
	b := make([]byte, 5)
	for i := range b {
		b[i] = alphabet[rand.IntN(len(alphabet))]
	}
	return base + string(b)
}

// attributes builds the admission attributes of a write.
func (h *Handler) attributes(ctx context.Context, res *registry.Resource, sub string, op admission.Operation, obj, old, options runtime.Object, dryRun bool) *admission.Attributes {
	kind := res.GVK()
	if sub == "scale" {
		kind = scaleKind
	}
	a := &admission.Attributes{
		Kind: kind, Resource: res.GVR, Subresource: sub,
		RequestKind: kind, RequestResource: res.GVR, RequestSubResource: sub,
		Operation: op, Object: obj, OldObject: old, Options: options, DryRun: dryRun,
	}
	src := obj
	if src == nil {
		src = old
	}
	if m, err := meta.Accessor(src); err == nil {
		a.Name, a.Namespace = m.GetName(), m.GetNamespace()
	}
	// A request on a namespace is in that namespace, its creation
	// included, as kube-apiserver's admission attributes have it.
	if res.GVR.Group == "" && res.GVR.Resource == "namespaces" {
		a.Namespace = a.Name
	}
	if st := request.StateFrom(ctx); st != nil {
		a.UserInfo = st.User
	}
	// Custom resources have their served versions as equivalents, and
	// built-in resources those stored as one (core and events.k8s.io
	// Events).
	a.Equivalents = equivalents{h.reg}
	return a
}
