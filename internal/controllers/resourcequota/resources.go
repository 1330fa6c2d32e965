package resourcequota

import (
	"context"
	"slices"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/quota"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// quotableVerbs are the verbs a resource must have for quota to follow
// it, as kube-controller-manager filters discovery.
var quotableVerbs = []string{"create", "list", "watch", "delete"}

// decoded are the resources whose usage depends on the objects' content;
// every other one is an object count, for which the stored keys suffice
// (kube-controller-manager follows those through metadata-only informers).
var decoded = map[schema.GroupResource]bool{
	{Resource: "pods"}:                   true,
	{Resource: "services"}:               true,
	{Resource: "persistentvolumeclaims"}: true,
}

// quotable are the served resources quota follows, one per group and
// resource (the served versions of one share their objects): namespaced,
// stored, with the verbs of quotableVerbs, and not ignored by quota.
// Custom resources come and go, so this is asked at each use.
func (c *Controller) quotable() map[schema.GroupResource]*registry.Resource {
	out := map[schema.GroupResource]*registry.Resource{}
	for _, r := range c.objs.Registry().All() {
		gr := r.GroupResource()
		if !r.Namespaced || r.Virtual || c.registry.Ignored(gr) || r.GVR.GroupResource() != gr {
			continue
		}
		if _, dup := out[gr]; dup {
			continue
		}
		verbs := r.AllVerbs()
		if !slices.ContainsFunc(quotableVerbs, func(v string) bool { return !slices.Contains(verbs, v) }) {
			out[gr] = r
		}
	}
	return out
}

// evaluators are the evaluators of the quotable resources, in a fixed
// order so that errors read the same from one sync to the next.
func (c *Controller) evaluators() []*quota.Evaluator {
	res := c.quotable()
	grs := make([]schema.GroupResource, 0, len(res))
	for gr := range res {
		grs = append(grs, gr)
	}
	sort.Slice(grs, func(i, j int) bool { return grs[i].String() < grs[j].String() })
	out := make([]*quota.Evaluator, len(grs))
	for i, gr := range grs {
		out[i] = c.registry.Get(gr)
	}
	return out
}

// list reads what is stored of gr in namespace ns: the typed objects of
// the resources whose content counts, the names of the others.
func (c *Controller) list(ctx context.Context, gr schema.GroupResource, ns string) ([]runtime.Object, error) {
	res, ok := c.quotable()[gr]
	if !ok {
		return nil, nil
	}
	if decoded[gr] {
		return c.objs.List(ctx, res.GVR, ns, nil)
	}
	prefix := res.NamespacePrefix(ns)
	page, err := c.objs.Store().List(ctx, prefix, storage.ListOptions{})
	if err != nil {
		return nil, objects.StorageError(err, gr, "")
	}
	out := make([]runtime.Object, len(page.KVs))
	for i, kv := range page.KVs {
		out[i] = &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: strings.TrimPrefix(kv.Key, prefix)}}
	}
	return out, nil
}

// resourceOf maps a stored key to the quotable resource and namespace it
// belongs to; ok is false for keys of anything else.
func (c *Controller) resourceOf(key string) (res *registry.Resource, ns string, ok bool) {
	for _, r := range c.quotable() {
		prefix := r.KeyPrefix()
		rest, found := strings.CutPrefix(key, prefix)
		if !found {
			continue
		}
		ns, name, found := strings.Cut(rest, "/")
		if !found || ns == "" || name == "" || strings.Contains(name, "/") {
			return nil, "", false
		}
		return r, ns, true
	}
	return nil, "", false
}
