package registry

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resource describes one served resource.
type Resource struct {
	GVR        schema.GroupVersionResource
	Kind       string
	Namespaced bool
	ShortNames []string
	Categories []string
	// Status is true when the resource has a status subresource: writes to
	// the main resource keep the stored status, writes to /status keep
	// everything else.
	Status bool
	// Scale is true for workloads with a /scale subresource.
	Scale bool
	// Generation is true when metadata.generation is kept: 1 on create,
	// bumped on every change outside metadata and status.
	Generation bool
	// ReturnDeleted is true when a DELETE answers with the deleted object
	// rather than a Status naming it, as kube-apiserver's stores of pods,
	// namespaces, volumes, services and storage classes do.
	ReturnDeleted bool
	// ConditionalUpdate is true when a PUT must carry the
	// metadata.resourceVersion it replaces (kube-apiserver's strategies
	// whose AllowUnconditionalUpdate is false: leases, admission
	// configuration, CSI objects).
	ConditionalUpdate bool
	// New and NewList make empty typed objects.
	New     func() runtime.Object
	NewList func() runtime.Object
	// Fields returns the field-selector fields of an object beyond
	// metadata.name and metadata.namespace, which every resource has.
	Fields func(obj runtime.Object) fields.Set
	// Singular is the lower-case kind.
	Singular string
	// Verbs overrides the default verb set.
	Verbs []string
	// Connectors are subresources answered by a function rather than the
	// store, such as serviceaccounts/token.
	Connectors []Connector
	// Unsupported names the subresources kube-apiserver has that this
	// server does not serve (such as pods/exec, which needs a kubelet):
	// requests for them are told so, rather than answered a bare 404.
	Unsupported []string
	// Virtual resources are not stored: a create is answered by a
	// function of the request (reviews such as TokenReview).
	Virtual bool
	// StoredAs is set when the objects are another resource's (events.k8s.io
	// Events are core Events).
	StoredAs *StoredAs
	// Custom is set for the resources of CustomResourceDefinitions.
	Custom *Custom
	// DeleteForbidden, when set, refuses the deletion of some objects by
	// name before anything else is checked (kube-apiserver's system
	// priority classes).
	DeleteForbidden func(name string) error

	// root and prefix are the registry's root and KeyPrefix, set once by
	// the registry that serves r.
	root, prefix string
}

// Connector is a subresource of a stored object served by a function.
type Connector struct {
	Name  string
	Kind  schema.GroupVersionKind
	Verbs []string
	New   func() runtime.Object
}

// GVK returns the resource's kind in its group and version.
func (r *Resource) GVK() schema.GroupVersionKind {
	return r.GVR.GroupVersion().WithKind(r.Kind)
}

// GroupResource returns e.g. deployments.apps, as error messages name it.
// GroupKind is the kind errors name: a resource stored as another is
// validated as that one's kind, as in kube-apiserver.
func (r *Resource) GroupKind() schema.GroupKind {
	if r.StoredAs != nil {
		return r.StoredAs.Resource.GVK().GroupKind()
	}
	return r.GVK().GroupKind()
}

// A resource stored as another is named as that one, as kube-apiserver's
// shared storage names it.
func (r *Resource) GroupResource() schema.GroupResource {
	if r.StoredAs != nil {
		return r.StoredAs.Resource.GroupResource()
	}
	return r.GVR.GroupResource()
}

// DefaultVerbs are the verbs of every resource unless it overrides them.
var DefaultVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// AllVerbs returns the resource's verbs.
func (r *Resource) AllVerbs() []string {
	if r.Verbs != nil {
		return r.Verbs
	}
	return DefaultVerbs
}

// KeyPrefix returns the storage prefix of the resource's objects, ending
// in "/": the registry's root, then the resource's path in kube-apiserver's
// etcd layout (see storagePath).
func (r *Resource) KeyPrefix() string {
	if r.StoredAs != nil {
		return r.StoredAs.Resource.KeyPrefix()
	}
	if r.prefix != "" {
		return r.prefix
	}
	return DefaultRoot + storagePath(r) + "/"
}

// NamespacePrefix returns the storage prefix of the objects in namespace ns
// (for namespaced resources), or KeyPrefix when ns is empty.
func (r *Resource) NamespacePrefix(ns string) string {
	if ns == "" || !r.Namespaced {
		return r.KeyPrefix()
	}
	return r.KeyPrefix() + ns + "/"
}

// Key returns the storage key of one object.
func (r *Resource) Key(ns, name string) string {
	if r.Namespaced {
		return r.KeyPrefix() + ns + "/" + name
	}
	return r.KeyPrefix() + name
}

// BelowRoot returns a stored key without the registry's root, as
// kube-apiserver's storage errors name keys ("/pods/default/web").
func (r *Resource) BelowRoot(key string) string {
	root := r.root
	if root == "" {
		root = DefaultRoot
	}
	return strings.TrimPrefix(key, strings.TrimSuffix(root, "/"))
}

// Registry indexes the served resources: the built-in ones, fixed at
// construction, and the custom ones, which SetCustom replaces as
// CustomResourceDefinitions come and go. Reads see one consistent set
// of custom resources and never block.
type Registry struct {
	root    string
	builtin *index
	custom  atomic.Pointer[index]
}

// index is one immutable set of resources.
type index struct {
	all    []*Resource
	byGVR  map[schema.GroupVersionResource]*Resource
	byKind map[schema.GroupVersionKind]*Resource
}

func newIndex(root string, resources []*Resource) (*index, error) {
	ix := &index{
		byGVR:  make(map[schema.GroupVersionResource]*Resource, len(resources)),
		byKind: make(map[schema.GroupVersionKind]*Resource, len(resources)),
	}
	for _, r := range resources {
		if _, dup := ix.byGVR[r.GVR]; dup {
			return nil, fmt.Errorf("registry: resource %s listed twice", r.GVR)
		}
		if r.Singular == "" {
			r.Singular = strings.ToLower(r.Kind)
		}
		r.root, r.prefix = root, root+storagePath(r)+"/"
		ix.all = append(ix.all, r)
		ix.byGVR[r.GVR] = r
		ix.byKind[r.GVK()] = r
	}
	return ix, nil
}

// New indexes the built-in resources, whose objects are stored under
// root (kube-apiserver's --etcd-prefix; "" is DefaultRoot). Duplicate
// resources are a programming error reported as such.
func New(root string, resources []*Resource) (*Registry, error) {
	root, err := cleanRoot(root)
	if err != nil {
		return nil, err
	}
	ix, err := newIndex(root, resources)
	if err != nil {
		return nil, err
	}
	reg := &Registry{root: root, builtin: ix}
	reg.custom.Store(&index{})
	return reg, nil
}

// Root returns the prefix of every stored object's key, ending in "/".
func (reg *Registry) Root() string { return reg.root }

// SetCustom replaces the custom resources. A custom resource may not
// take the place of a built-in one: such resources are left out and
// reported in the error, the others are served.
func (reg *Registry) SetCustom(resources []*Resource) error {
	var keep []*Resource
	var clash []string
	for _, r := range resources {
		if _, builtin := reg.builtin.byGVR[r.GVR]; builtin {
			clash = append(clash, r.GVR.String())
			continue
		}
		keep = append(keep, r)
	}
	ix, err := newIndex(reg.root, keep)
	if err != nil {
		return err
	}
	reg.custom.Store(ix)
	if len(clash) > 0 {
		return fmt.Errorf("registry: custom resources %s would replace built-in ones", strings.Join(clash, ", "))
	}
	return nil
}

// All returns the built-in resources in registration order, then the
// custom ones.
func (reg *Registry) All() []*Resource {
	custom := reg.custom.Load()
	if len(custom.all) == 0 {
		return reg.builtin.all
	}
	return append(slices.Clip(reg.builtin.all), custom.all...)
}

// Builtin returns the built-in resources only.
func (reg *Registry) Builtin() []*Resource { return reg.builtin.all }

// Lookup finds a resource by group, version and plural name.
func (reg *Registry) Lookup(gvr schema.GroupVersionResource) (*Resource, bool) {
	if r, ok := reg.builtin.byGVR[gvr]; ok {
		return r, true
	}
	r, ok := reg.custom.Load().byGVR[gvr]
	return r, ok
}

// ForKind finds a resource by its kind.
func (reg *Registry) ForKind(gvk schema.GroupVersionKind) (*Resource, bool) {
	if r, ok := reg.builtin.byKind[gvk]; ok {
		return r, true
	}
	r, ok := reg.custom.Load().byKind[gvk]
	return r, ok
}

// GroupVersions returns the served group versions in registration order,
// the core group first.
func (reg *Registry) GroupVersions() []schema.GroupVersion {
	var out []schema.GroupVersion
	seen := map[schema.GroupVersion]bool{}
	for _, r := range reg.All() {
		gv := r.GVR.GroupVersion()
		if !seen[gv] {
			seen[gv] = true
			out = append(out, gv)
		}
	}
	return out
}
