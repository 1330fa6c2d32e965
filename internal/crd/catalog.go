package crd

import (
	"context"
	"errors"
	"log/slog"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/portcullis/portcullis/internal/informer"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/webhookclient"
)

// Publisher is told the custom resources after every change of the set
// (discovery, OpenAPI).
type Publisher func(custom []*registry.Resource) error

// Catalog keeps the registry's custom resources equal to the established
// CRDs.
type Catalog struct {
	reg     *registry.Registry
	crds    *CRDs
	changed <-chan struct{}
	publish []Publisher
	log     *slog.Logger
	// services resolves the Services of conversion webhooks.
	services webhookclient.ServiceResolver

	// built caches each CRD's resources by the resourceVersion they were
	// compiled from; only Run's goroutine uses it.
	built  map[string]builtCRD
	synced chan struct{}
}

type builtCRD struct {
	rv        string
	resources []*registry.Resource
}

// CRDs is the informer set of CustomResourceDefinitions that the catalog
// and the CRD controllers share.
type CRDs = informer.Set[*apiextensionsv1.CustomResourceDefinition]

// GVR is where CustomResourceDefinitions are served.
var GVR = schema.GroupVersionResource{Group: apiextensionsv1.GroupName, Version: "v1", Resource: "customresourcedefinitions"}

// NewCRDs returns the informer set of the CRDs in objs; whoever builds it
// runs it.
func NewCRDs(objs *objects.Objects, log *slog.Logger) (*CRDs, error) {
	res, ok := objs.Lookup(GVR)
	if !ok {
		return nil, errors.New("crd: customresourcedefinitions are not served")
	}
	return informer.NewSet[*apiextensionsv1.CustomResourceDefinition](objs.Store(), res, objs.Decode, log), nil
}

// New returns the catalog over crds, serving into reg; Run starts it.
// services resolves the Services of conversion webhooks.
func New(crds *CRDs, reg *registry.Registry, services webhookclient.ServiceResolver, log *slog.Logger, publish ...Publisher) *Catalog {
	return &Catalog{reg: reg, crds: crds, services: services, changed: crds.Subscribe(), publish: publish, log: log,
		built: map[string]builtCRD{}, synced: make(chan struct{})}
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

// Run serves the CRDs' resources until ctx is done; the CRDs set must be
// running.
func (c *Catalog) Run(ctx context.Context) {
	select {
	case <-c.crds.Synced():
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
	crds := c.crds.List()
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
			resources, err := resources(crd, c.services)
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
