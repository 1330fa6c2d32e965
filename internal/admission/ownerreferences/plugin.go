package ownerreferences

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/authz"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "OwnerReferencesPermissionEnforcement"

// Owner is one resource that serves an owner reference's kind.
type Owner struct {
	Resource   schema.GroupVersionResource
	Namespaced bool
}

// OwnerResources maps an owner reference's group and kind, in the version
// of its apiVersion, to the resources that serve it, as kube-apiserver's
// RESTMapper.RESTMappings(groupKind, version) does: an empty version means
// the group's served versions; a kind that is not served is an error
// (*meta.NoKindMatchError, whose text the client sees).
type OwnerResources func(gk schema.GroupKind, version string) ([]Owner, error)

// The errors of New.
var (
	ErrNoAuthorizer = errors.New(Name + ": missing authorizer")
	ErrNoResources  = errors.New(Name + ": missing owner resources")
)

// Plugin is OwnerReferencesPermissionEnforcement.
type Plugin struct {
	az     authz.Authorizer
	owners OwnerResources
}

// New returns the plugin asking az, mapping owners through owners.
func New(az authz.Authorizer, owners OwnerResources) (*Plugin, error) {
	if az == nil {
		return nil, ErrNoAuthorizer
	}
	if owners == nil {
		return nil, ErrNoResources
	}
	return &Plugin{az: az, owners: owners}, nil
}

// pods/status is exempt: the pod status strategy keeps ownerReferences.
var pods = schema.GroupResource{Resource: "pods"}

// Validate implements admission.Validator.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	if a.Resource.GroupResource() == pods && a.Subresource == "status" {
		return nil
	}
	old := a.OldObject
	if isNil(old) {
		old = nil
	}
	if !changesOwnerReferences(a.Object, old) {
		return nil
	}
	// Whoever may create an object could have chosen not to, so setting
	// owners on create needs no delete permission; blocking an owner's
	// deletion still needs the owner's finalizers, below.
	if a.Operation != admission.Create {
		d, reason, err := p.az.Authorize(ctx, authorizer.AttributesRecord{
			User:            a.UserInfo,
			Verb:            "delete",
			Namespace:       a.Namespace,
			APIGroup:        a.Resource.Group,
			APIVersion:      a.Resource.Version,
			Resource:        a.Resource.Resource,
			Subresource:     a.Subresource,
			Name:            a.Name,
			ResourceRequest: true,
		})
		if d != authorizer.DecisionAllow {
			// %v, not %w: kube-apiserver prints a nil error as "<nil>".
			return admission.NewForbidden(a, fmt.Errorf("cannot set an ownerRef on a resource you can't delete: %v, %v", reason, err))
		}
	}
	blocking := newBlockingRefs(a.Object, old)
	if len(blocking) == 0 {
		return nil
	}
	// One question that, allowed, spares a lookup per owner.
	if d, _, _ := p.az.Authorize(ctx, finalizeAnything(a.UserInfo)); d == authorizer.DecisionAllow {
		return nil
	}
	for _, ref := range blocking {
		records, err := p.finalizerRecords(ref, a)
		if err != nil {
			return admission.NewForbidden(a, fmt.Errorf("cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion %s Kind %s: %w", ref.APIVersion, ref.Kind, err))
		}
		for _, r := range records {
			if d, reason, err := p.az.Authorize(ctx, r); d != authorizer.DecisionAllow {
				return admission.NewForbidden(a, fmt.Errorf("cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: %v, %v", reason, err))
			}
		}
	}
	return nil
}

func finalizeAnything(u user.Info) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{
		User:            u,
		Verb:            "update",
		APIGroup:        "*",
		APIVersion:      "*",
		Resource:        "*",
		Subresource:     "finalizers",
		Name:            "*",
		ResourceRequest: true,
	}
}

// finalizerRecords are the "update <resource>/finalizers" questions for
// the owner ref points to: one per resource its kind maps to, all of
// which must be allowed.
func (p *Plugin) finalizerRecords(ref metav1.OwnerReference, a *admission.Attributes) ([]authorizer.AttributesRecord, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, err
	}
	owners, err := p.owners(schema.GroupKind{Group: gv.Group, Kind: ref.Kind}, gv.Version)
	if err != nil {
		return nil, err
	}
	records := make([]authorizer.AttributesRecord, 0, len(owners))
	for _, o := range owners {
		r := authorizer.AttributesRecord{
			User:            a.UserInfo,
			Verb:            "update",
			APIGroup:        o.Resource.Group,
			APIVersion:      o.Resource.Version,
			Resource:        o.Resource.Resource,
			Subresource:     "finalizers",
			Name:            ref.Name,
			ResourceRequest: true,
		}
		// A namespaced owner must live in its dependent's namespace.
		if o.Namespaced {
			r.Namespace = a.Namespace
		}
		records = append(records, r)
	}
	return records, nil
}

// changesOwnerReferences reports whether obj's ownerReferences differ
// from old's (old nil: whether obj has any).
func changesOwnerReferences(obj, old runtime.Object) bool {
	nm, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	if old == nil {
		return len(nm.GetOwnerReferences()) > 0
	}
	om, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	newRefs, oldRefs := nm.GetOwnerReferences(), om.GetOwnerReferences()
	if len(newRefs) != len(oldRefs) {
		return true
	}
	for i := range oldRefs {
		if !equality.Semantic.DeepEqual(oldRefs[i], newRefs[i]) {
			return true
		}
	}
	return false
}

// newBlockingRefs are obj's references with blockOwnerDeletion true that
// old (matched by UID) lacks or did not block with.
func newBlockingRefs(obj, old runtime.Object) []metav1.OwnerReference {
	nm, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	var blocking []metav1.OwnerReference
	for _, r := range nm.GetOwnerReferences() {
		if r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion {
			blocking = append(blocking, r)
		}
	}
	if len(blocking) == 0 || old == nil {
		return blocking
	}
	om, err := meta.Accessor(old)
	if err != nil {
		return blocking
	}
	oldByUID := map[types.UID]metav1.OwnerReference{}
	for _, r := range om.GetOwnerReferences() {
		oldByUID[r.UID] = r
	}
	var fresh []metav1.OwnerReference
	for _, r := range blocking {
		o, ok := oldByUID[r.UID]
		if !ok || o.BlockOwnerDeletion == nil || !*o.BlockOwnerDeletion {
			fresh = append(fresh, r)
		}
	}
	return fresh
}

func isNil(obj runtime.Object) bool {
	if obj == nil {
		return true
	}
	v := reflect.ValueOf(obj)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
