package crd

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/portcullis/portcullis/internal/informer"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/registry"
)

// Publisher is told the custom resources after every change of the set
// (discovery, OpenAPI).
type Publisher func(custom []*registry.Resource) error

// Catalog keeps the registry's custom resources equal to the established
// CRDs.
type Catalog struct {
	reg     *registry.Registry
	in      *informer.Informer
	publish []Publisher
	log     *slog.Logger

	mu   sync.Mutex
	crds map[string]*apiextensionsv1.CustomResourceDefinition
	// built caches each CRD's resources by the resourceVersion they were
	// compiled from.
	built   map[string]builtCRD
	changed chan struct{}
	synced  chan struct{}
}

type builtCRD struct {
	rv        string
	resources []*registry.Resource
}

// GVR is where CustomResourceDefinitions are served.
var GVR = schema.GroupVersionResource{Group: apiextensionsv1.GroupName, Version: "v1", Resource: "customresourcedefinitions"}

// New returns the catalog over the CRDs in objs; Run starts it.
func New(objs *objects.Objects, log *slog.Logger, publish ...Publisher) (*Catalog, error) {
	res, ok := objs.Lookup(GVR)
	if !ok {
		return nil, errors.New("crd: customresourcedefinitions are not served")
	}
	c := &Catalog{reg: objs.Registry(), publish: publish, log: log,
		crds: map[string]*apiextensionsv1.CustomResourceDefinition{}, built: map[string]builtCRD{},
		changed: make(chan struct{}, 1), synced: make(chan struct{})}
	c.in = informer.New(objs.Store(), res, objs.Decode, informer.HandlerFuncs{UpsertFunc: c.upsert, DeleteFunc: c.delete}, log)
	return c, nil
}

func (c *Catalog) upsert(obj runtime.Object) {
	if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
		c.mu.Lock()
		c.crds[crd.Name] = crd
		c.mu.Unlock()
		c.poke()
	}
}

func (c *Catalog) delete(obj runtime.Object) {
	if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
		c.mu.Lock()
		delete(c.crds, crd.Name)
		c.mu.Unlock()
		c.poke()
	}
}

func (c *Catalog) poke() {
	select {
	case c.changed <- struct{}{}:
	default:
	}
}

// Synced is closed once the CRDs stored at start are served.
func (c *Catalog) Synced() <-chan struct{} { return c.synced }

// WaitSynced waits until the CRDs stored at start are served, for the
// server's readiness.
func (c *Catalog) WaitSynced(ctx context.Context) error {
	select {
	case <-c.synced:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run follows the CRDs and serves their resources until ctx is done.
func (c *Catalog) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { c.in.Run(ctx) })
	select {
	case <-c.in.Synced():
	case <-ctx.Done():
		return
	}
	c.sync()
	close(c.synced)
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.changed:
			c.sync()
		}
	}
}

// sync rebuilds the custom set from the CRDs known now.
func (c *Catalog) sync() {
	c.mu.Lock()
	crds := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(c.crds))
	for _, crd := range c.crds {
		crds = append(crds, crd)
	}
	c.mu.Unlock()
	sort.Slice(crds, func(i, j int) bool {
		if crds[i].Spec.Group != crds[j].Spec.Group {
			return crds[i].Spec.Group < crds[j].Spec.Group
		}
		return crds[i].Name < crds[j].Name
	})
	built := make(map[string]builtCRD, len(crds))
	var all []*registry.Resource
	for _, crd := range crds {
		b, ok := c.built[crd.Name]
		if !ok || b.rv != crd.ResourceVersion {
			resources, err := Resources(crd)
			if err != nil {
				// Resources still returns what can be served (versions
				// whose rules do not compile are, as in kube-apiserver).
				c.log.Warn("serving custom resource definition", "crd", crd.Name, "err", err)
			}
			b = builtCRD{rv: crd.ResourceVersion, resources: resources}
		}
		built[crd.Name] = b
		all = append(all, b.resources...)
	}
	c.built = built
	if err := c.reg.SetCustom(all); err != nil {
		c.log.Warn("serving custom resources", "err", err)
	}
	for _, p := range c.publish {
		if err := p(all); err != nil {
			c.log.Warn("publishing custom resources", "err", err)
		}
	}
}

// sortVersions orders versions as kube-apiserver ranks them: GA before
// beta before alpha, higher numbers first, then other names
// alphabetically.
func sortVersions(versions []string) {
	sort.SliceStable(versions, func(i, j int) bool {
		return version.CompareKubeAwareVersionStrings(versions[i], versions[j]) > 0
	})
}
