package openapi

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resource describes one served REST resource.
type Resource struct {
	GVK          schema.GroupVersionKind // e.g. apps/v1 Deployment
	ListGVK      schema.GroupVersionKind // e.g. apps/v1 DeploymentList
	Plural       string                  // "deployments"
	Namespaced   bool
	Subresources []string // "status", "scale"
	Verbs        []string // get list watch create update patch delete deletecollection
}

// Info is the info object of both documents.
type Info struct{ Title, Version string }

// Documents holds the OpenAPI documents of a set of resources. The model is
// built by New; the serialized forms on first use (see doc.go).
type Documents struct {
	info  Info
	defs  map[string]*node
	paths map[string]*pathItem
	gvs   []schema.GroupVersion // sorted
	// hasScale tells whether the scheme knows autoscaling/v1 Scale, which
	// the scale subresource of custom resources publishes.
	hasScale bool

	// The built-in model serialized, once; every build reuses it.
	baseOnce sync.Once
	base     *base
	baseErr  error

	// custom is what SetCustom last accepted; customMu serializes
	// SetCustom. current is the last build, for custom; buildMu
	// serializes the builds that replace it.
	custom   atomic.Pointer[customSet]
	customMu sync.Mutex
	current  atomic.Pointer[built]
	buildMu  sync.Mutex
}

var knownVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}

// New builds the model of both documents from the Go types that scheme
// holds for the resources' kinds. It fails on a resource whose kinds the
// scheme does not know, on an unknown verb, on a duplicate resource and on a
// Go type without a JSON schema. Rendering, left for the first request, is
// not expected to fail; if it did, the handlers would answer 500.
func New(scheme *runtime.Scheme, resources []Resource, info Info) (*Documents, error) {
	known := scheme.AllKnownTypes()
	served := map[schema.GroupVersion]bool{}
	for _, r := range resources {
		if err := validate(r); err != nil {
			return nil, err
		}
		served[r.GVK.GroupVersion()] = true
	}

	r := newReflector(kindsByType(known, resources, served))
	// Besides what operations use whatever the resource, the definitions
	// that custom resources refer to (SetCustom), even if no built-in
	// resource does.
	common := []reflect.Type{
		reflect.TypeFor[metav1.Status](), reflect.TypeFor[metav1.DeleteOptions](),
		reflect.TypeFor[metav1.Patch](), reflect.TypeFor[metav1.WatchEvent](),
		reflect.TypeFor[metav1.APIResourceList](),
		reflect.TypeFor[metav1.ObjectMeta](), reflect.TypeFor[metav1.ListMeta](),
	}
	scale, hasScale := known[scaleGVK]
	if hasScale {
		common = append(common, scale)
	}
	for _, t := range common {
		if _, err := r.define(t); err != nil {
			return nil, err
		}
	}
	defNames := map[schema.GroupVersionKind]string{}
	define := func(k schema.GroupVersionKind) error {
		t, ok := known[k]
		if !ok {
			return fmt.Errorf("%w: %v", ErrUnknownKind, k)
		}
		name, err := r.define(t)
		if err != nil {
			return err
		}
		defNames[k] = name
		return nil
	}

	paths := map[string]*pathItem{}
	seen := map[schema.GroupVersionResource]bool{}
	for _, res := range resources {
		gvr := res.GVK.GroupVersion().WithResource(res.Plural)
		if seen[gvr] {
			return nil, fmt.Errorf("%w: %v listed twice", ErrInvalidResource, gvr)
		}
		seen[gvr] = true
		kinds := []schema.GroupVersionKind{res.GVK}
		if needsList(res) {
			kinds = append(kinds, res.ListGVK)
		}
		for _, name := range res.Subresources {
			if k := subresources[name].kind; k != nil {
				kinds = append(kinds, *k)
			}
		}
		for _, k := range kinds {
			if err := define(k); err != nil {
				return nil, fmt.Errorf("resource %v: %w", gvr, err)
			}
		}
		resourcePaths(paths, res, func(k schema.GroupVersionKind) string { return defNames[k] })
	}

	gvs := make([]schema.GroupVersion, 0, len(served))
	for gv := range served {
		gvs = append(gvs, gv)
		discoveryPath(paths, gv)
	}
	slices.SortFunc(gvs, func(a, b schema.GroupVersion) int { return strings.Compare(gvPath(a), gvPath(b)) })

	d := &Documents{info: info, defs: r.defs, paths: paths, gvs: gvs, hasScale: hasScale}
	d.custom.Store(&customSet{})
	return d, nil
}

// kindsByType gives the x-kubernetes-group-version-kind of each Go type:
// every kind the scheme registers it as in a served group-version, plus
// the kinds of the published subresources.
func kindsByType(known map[schema.GroupVersionKind]reflect.Type, resources []Resource, served map[schema.GroupVersion]bool) map[reflect.Type][]gvk {
	gvks := map[reflect.Type][]gvk{}
	for k, t := range known {
		if served[k.GroupVersion()] {
			gvks[t] = append(gvks[t], gvk{Group: k.Group, Version: k.Version, Kind: k.Kind})
		}
	}
	// A subresource's kind may live in a group that is not served
	// (autoscaling/v1 Scale); it is a kind all the same. Scale is one even
	// when no built-in resource has the subresource: custom resources may.
	extra := []schema.GroupVersionKind{scaleGVK}
	for _, r := range resources {
		for _, name := range r.Subresources {
			if k := subresources[name].kind; k != nil {
				extra = append(extra, *k)
			}
		}
	}
	for _, k := range extra {
		if served[k.GroupVersion()] {
			continue
		}
		g := gvk{Group: k.Group, Version: k.Version, Kind: k.Kind}
		if t, ok := known[k]; ok && !slices.Contains(gvks[t], g) {
			gvks[t] = append(gvks[t], g)
		}
	}
	for _, list := range gvks {
		slices.SortFunc(list, func(a, b gvk) int {
			return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Version, b.Version), cmp.Compare(a.Kind, b.Kind))
		})
	}
	return gvks
}

func needsList(r Resource) bool {
	return slices.Contains(r.Verbs, "list")
}

func validate(r Resource) error {
	switch {
	case r.GVK.Version == "" || r.GVK.Kind == "":
		return fmt.Errorf("%w: %q has no version or kind", ErrInvalidResource, r.Plural)
	case r.Plural == "" || strings.ContainsAny(r.Plural, "/{}") || strings.ToLower(r.Plural) != r.Plural:
		return fmt.Errorf("%w: %v has plural %q", ErrInvalidResource, r.GVK, r.Plural)
	case needsList(r) && r.ListGVK.Kind == "":
		return fmt.Errorf("%w: %v can be listed but has no list kind", ErrInvalidResource, r.GVK)
	}
	for _, v := range r.Verbs {
		if !slices.Contains(knownVerbs, v) {
			return fmt.Errorf("%w: %v has unknown verb %q", ErrInvalidResource, r.GVK, v)
		}
	}
	return nil
}

// gvPath is the key of a group-version in the v3 discovery index:
// "api/v1" or "apis/<group>/<version>".
func gvPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}
