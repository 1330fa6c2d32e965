package rest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

func (h *Handler) update(w http.ResponseWriter, r *http.Request, t target) {
	if t.sub == "scale" {
		h.updateScale(w, r, t)
		return
	}
	obj, opts, options, err := h.readObject(r, t.res)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	m, _ := meta.Accessor(obj)
	if m.GetName() != t.name {
		h.rs.Error(w, r, apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", m.GetName(), t.name)))
		return
	}
	if err := checkNamespace(t, obj); err != nil {
		h.rs.Error(w, r, err)
		return
	}
	if m.GetResourceVersion() == "" && !unconditionalUpdate(t.res) {
		gr := t.res.GroupResource()
		h.rs.Error(w, r, apierrors.NewInvalid(schema.GroupKind{Group: gr.Group, Kind: gr.Resource}, t.name, field.ErrorList{
			field.Invalid(field.NewPath("metadata", "resourceVersion"), 0, "must be specified for an update")}))
		return
	}
	out, created, err := h.updateObject(r.Context(), t, func(cur runtime.Object) (runtime.Object, error) {
		// A PUT's uid is a precondition on the stored object.
		if uid := m.GetUID(); uid != "" {
			if cm, err := meta.Accessor(cur); err == nil && cm.GetUID() != uid {
				return nil, preconditionConflict(t.res, t.ns, t.name, "UID", string(uid), string(cm.GetUID()))
			}
		}
		return obj.DeepCopyObject(), nil
	}, opts, options, false)
	if err != nil {
		h.rs.Error(w, r, err)
		return
	}
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	h.respond(w, r, code, t.res, out)
}

// updateFunc computes the new object from a copy of the current one
// (nil when the object does not exist and the write may create it).
type updateFunc func(cur runtime.Object) (runtime.Object, error)

// updateObject is the read-modify-write loop behind update, patch and the
// subresources. A new object that names a resourceVersion must match the
// stored one (409 otherwise); one that does not is retried on conflict, so
// patches apply to whatever is current. applied marks server-side apply,
// whose managed fields tryUpdate already computed.
func (h *Handler) updateObject(ctx context.Context, t target, tryUpdate updateFunc, opts writeOptions, options runtime.Object, applied bool) (runtime.Object, bool, error) {
	res := t.res
	key := res.Key(t.ns, t.name)
	// A write through /scale changes the object as its main resource
	// does; only admission sees the Scale (writeScale).
	strategySub := t.sub
	if strategySub == "scale" {
		strategySub = ""
	}
	for attempt := 0; ; attempt++ {
		kv, err := h.store.Get(ctx, key)
		if errors.Is(err, storage.ErrNotFound) && applied && t.sub == "" {
			obj, err := tryUpdate(nil)
			if err != nil {
				return nil, false, err
			}
			out, err := h.createObject(ctx, res, obj, obj, opts, createOptions(options))
			return out, err == nil, err
		}
		if err != nil {
			return nil, false, objects.StorageError(err, res.GroupResource(), t.name)
		}
		cur, err := h.o.DecodeContext(ctx, res, kv)
		if err != nil {
			return nil, false, codecError(err)
		}
		obj, err := tryUpdate(cur.DeepCopyObject())
		if err != nil {
			return nil, false, err
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, false, apierrors.NewBadRequest(err.Error())
		}
		settleCustom(res, obj)
		h.defaultObject(res, obj)
		// A resourceVersion other than the stored one is a stale write. One
		// equal to it (a PUT that names it, or a patch, which carries the
		// current object's) is retried when the store reports a conflict:
		// the next attempt reads again, and a PUT's then stale version
		// answers 409 while a patch applies to what is stored then, as in
		// kube-apiserver, where concurrent patches never conflict.
		current := strconv.FormatInt(kv.ModRevision, 10)
		explicitRV := m.GetResourceVersion() != "" && m.GetResourceVersion() != current
		if explicitRV {
			return nil, false, apierrors.NewConflict(res.GroupResource(), t.name, errors.New(objects.OptimisticLockMessage))
		}
		m.SetResourceVersion(current)
		om, _ := meta.Accessor(cur)
		if om.GetDeletionTimestamp() != nil {
			added := sets.New(m.GetFinalizers()...).Difference(sets.New(om.GetFinalizers()...))
			if added.Len() > 0 {
				return nil, false, apierrors.NewInvalid(res.GroupKind(), t.name, field.ErrorList{field.Forbidden(field.NewPath("metadata", "finalizers"),
					fmt.Sprintf("no new finalizers can be added if the object is being deleted, found new finalizers %#v", sets.List(added)))})
			}
		}
		prepareForUpdate(res, strategySub, obj, cur)
		switch {
		case applied:
		case t.sub == "scale":
			if err := h.scaleManagedFields(res, cur, obj, opts.FieldManager); err != nil {
				return nil, false, apierrors.NewInternalError(err)
			}
		default:
			fm := h.manager(res, managerSub(t.sub))
			obj = fm.UpdateNoErrors(cur, obj, opts.FieldManager)
		}
		if t.sub == "" {
			prepareManaged(obj, cur)
		}
		var attrs *admission.Attributes
		if t.sub != "scale" {
			attrs = h.attributes(ctx, res, t.sub, admission.Update, obj, cur, options, opts.DryRun)
			if err := h.cfg.Admission.Admit(ctx, attrs); err != nil {
				return nil, false, err
			}
			obj = attrs.Object
		}
		settleAdmitted(res, obj)
		m, _ = meta.Accessor(obj)
		if errs := h.validateUpdate(ctx, res, strategySub, obj, cur); len(errs) > 0 {
			return nil, false, apierrors.NewInvalid(res.GroupKind(), t.name, errs)
		}
		if t.sub == "scale" {
			// Validating admission judges the Scales of the updated and
			// the stored object, as kube-apiserver's scale storage does.
			if attrs, err = h.scaleAttributes(ctx, res, obj, cur, options, opts.DryRun); err != nil {
				return nil, false, err
			}
		}
		if err := h.cfg.Admission.Validate(ctx, attrs); err != nil {
			return nil, false, err
		}
		pruneAdmitted(res, obj)
		// An object being deleted goes once its last finalizer is removed.
		if m.GetDeletionTimestamp() != nil && len(m.GetFinalizers()) == 0 && h.deletableNow(obj) {
			if opts.DryRun {
				return obj, false, nil
			}
			_, rev, err := h.store.Delete(ctx, key, kv.ModRevision)
			if errors.Is(err, storage.ErrConflict) && !explicitRV && attempt < 100 {
				continue
			}
			if err != nil {
				return nil, false, objects.StorageError(err, res.GroupResource(), t.name)
			}
			setRV(obj, rev)
			return obj, false, nil
		}
		data, err := h.o.EncodeContext(ctx, res, obj)
		if err != nil {
			return nil, false, codecError(err)
		}
		if bytes.Equal(data, kv.Value) && !kv.Stale {
			// Nothing changed: no write, the resourceVersion stays. A
			// stale value (written with a key being rotated out) is
			// rewritten, which is how `kubectl replace` moves it.
			setRV(obj, kv.ModRevision)
			return h.asStored(ctx, res, obj, data, kv.ModRevision), false, nil
		}
		if opts.DryRun {
			setRV(obj, kv.ModRevision)
			return obj, false, nil
		}
		nkv, err := h.store.Update(ctx, key, data, kv.ModRevision)
		if errors.Is(err, storage.ErrConflict) && !explicitRV && attempt < 100 {
			continue
		}
		if err != nil {
			return nil, false, objects.StorageError(err, res.GroupResource(), t.name)
		}
		setRV(obj, nkv.ModRevision)
		return h.asStored(ctx, res, obj, data, nkv.ModRevision), false, nil
	}
}

// unconditionalUpdate reports whether a PUT without a resourceVersion may
// replace whatever is stored: not for custom resources and their
// definitions, nor for the resources marked ConditionalUpdate, whose
// strategies forbid it in kube-apiserver.
func unconditionalUpdate(res *registry.Resource) bool {
	return res.Custom == nil && res.GVR.Group != apiextensionsv1.GroupName && !res.ConditionalUpdate
}

func managerSub(sub string) string {
	if sub == "status" {
		return "status"
	}
	return ""
}
