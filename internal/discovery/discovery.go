package discovery

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/registry"
)

// Writer writes API objects with content negotiation (rest.Responder).
type Writer interface {
	Object(w http.ResponseWriter, r *http.Request, code int, obj runtime.Object)
}

// Handler serves discovery. Its documents are rebuilt from the registry
// whenever Refresh is called (custom resources come and go) and swapped
// in at once.
type Handler struct {
	out Writer
	reg *registry.Registry
	cur atomic.Pointer[documents]
}

// documents is one consistent set of discovery documents.
type documents struct {
	groups      *metav1.APIGroupList
	groupByName map[string]*metav1.APIGroup
	resources   map[schema.GroupVersion]*metav1.APIResourceList
	aggCore     []byte
	aggGroups   []byte
	etagCore    string
	etagGroups  string
}

const aggregatedMedia = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// New builds every discovery document from reg.
func New(reg *registry.Registry, out Writer) (*Handler, error) {
	h := &Handler{out: out, reg: reg}
	if err := h.Refresh(); err != nil {
		return nil, err
	}
	return h, nil
}

// Refresh rebuilds the documents from the registry's resources now.
func (h *Handler) Refresh() error {
	d, err := build(h.reg)
	if err != nil {
		return err
	}
	h.cur.Store(d)
	return nil
}

func build(reg *registry.Registry) (*documents, error) {
	d := &documents{
		groups:      &metav1.APIGroupList{},
		groupByName: map[string]*metav1.APIGroup{},
		resources:   map[schema.GroupVersion]*metav1.APIResourceList{},
	}
	agg := map[string]*apidiscoveryv2.APIGroupDiscovery{}
	aggVersion := map[schema.GroupVersion]int{}
	groupIndex := map[string]int{}
	var order []string
	for _, gv := range byPriority(reg.GroupVersions()) {
		d.resources[gv] = &metav1.APIResourceList{GroupVersion: gv.String()}
		gvd := metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version}
		g, ok := agg[gv.Group]
		if !ok {
			// The first version registered for a group is its preferred one.
			g = &apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: gv.Group}}
			agg[gv.Group] = g
			order = append(order, gv.Group)
			if gv.Group != "" {
				groupIndex[gv.Group] = len(d.groups.Groups)
				d.groups.Groups = append(d.groups.Groups, metav1.APIGroup{Name: gv.Group, PreferredVersion: gvd})
			}
		}
		aggVersion[gv] = len(g.Versions)
		g.Versions = append(g.Versions, apidiscoveryv2.APIVersionDiscovery{Version: gv.Version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent})
		if gv.Group != "" {
			grp := &d.groups.Groups[groupIndex[gv.Group]]
			grp.Versions = append(grp.Versions, gvd)
		}
	}
	for i := range d.groups.Groups {
		d.groupByName[d.groups.Groups[i].Name] = &d.groups.Groups[i]
	}
	for _, res := range reg.All() {
		gv := res.GVR.GroupVersion()
		list := d.resources[gv]
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name: res.GVR.Resource, SingularName: res.Singular, Namespaced: res.Namespaced, Kind: res.Kind,
			Verbs: res.AllVerbs(), ShortNames: res.ShortNames, Categories: res.Categories,
			StorageVersionHash: storageVersionHash(res),
		})
		scope := apidiscoveryv2.ScopeCluster
		if res.Namespaced {
			scope = apidiscoveryv2.ScopeNamespace
		}
		rd := apidiscoveryv2.APIResourceDiscovery{
			Resource: res.GVR.Resource, ResponseKind: &metav1.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: res.Kind},
			Scope: scope, SingularResource: res.Singular, Verbs: res.AllVerbs(), ShortNames: res.ShortNames, Categories: res.Categories,
		}
		subVerbs := []string{"get", "patch", "update"}
		if res.Status {
			list.APIResources = append(list.APIResources, metav1.APIResource{Name: res.GVR.Resource + "/status", Namespaced: res.Namespaced, Kind: res.Kind, Verbs: subVerbs})
			rd.Subresources = append(rd.Subresources, apidiscoveryv2.APISubresourceDiscovery{Subresource: "status",
				ResponseKind: rd.ResponseKind, Verbs: subVerbs})
		}
		if res.Scale {
			list.APIResources = append(list.APIResources, metav1.APIResource{Name: res.GVR.Resource + "/scale", Namespaced: res.Namespaced,
				Group: "autoscaling", Version: "v1", Kind: "Scale", Verbs: subVerbs})
			rd.Subresources = append(rd.Subresources, apidiscoveryv2.APISubresourceDiscovery{Subresource: "scale",
				ResponseKind: &metav1.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}, Verbs: subVerbs})
		}
		for _, c := range res.Connectors {
			list.APIResources = append(list.APIResources, metav1.APIResource{Name: res.GVR.Resource + "/" + c.Name, Namespaced: res.Namespaced,
				Group: c.Kind.Group, Version: c.Kind.Version, Kind: c.Kind.Kind, Verbs: c.Verbs})
			rd.Subresources = append(rd.Subresources, apidiscoveryv2.APISubresourceDiscovery{Subresource: c.Name,
				ResponseKind: &metav1.GroupVersionKind{Group: c.Kind.Group, Version: c.Kind.Version, Kind: c.Kind.Kind}, Verbs: c.Verbs})
		}
		if res.GVR.Group == "" && res.GVR.Resource == "namespaces" {
			list.APIResources = append(list.APIResources, metav1.APIResource{Name: "namespaces/finalize", Kind: "Namespace", Verbs: []string{"update"}})
			rd.Subresources = append(rd.Subresources, apidiscoveryv2.APISubresourceDiscovery{Subresource: "finalize",
				ResponseKind: rd.ResponseKind, Verbs: []string{"update"}})
		}
		v := &agg[gv.Group].Versions[aggVersion[gv]]
		v.Resources = append(v.Resources, rd)
	}
	// kube-apiserver lists the resources of a group version by name.
	for _, l := range d.resources {
		sort.SliceStable(l.APIResources, func(i, j int) bool { return l.APIResources[i].Name < l.APIResources[j].Name })
	}
	for _, g := range agg {
		for i := range g.Versions {
			rs := g.Versions[i].Resources
			sort.SliceStable(rs, func(a, b int) bool { return rs[a].Resource < rs[b].Resource })
		}
	}
	var err error
	core := &apidiscoveryv2.APIGroupDiscoveryList{Items: []apidiscoveryv2.APIGroupDiscovery{*agg[""]}}
	groups := &apidiscoveryv2.APIGroupDiscoveryList{}
	for _, name := range order {
		if name != "" {
			groups.Items = append(groups.Items, *agg[name])
		}
	}
	if d.aggCore, d.etagCore, err = encodeAggregated(core); err != nil {
		return nil, err
	}
	if d.aggGroups, d.etagGroups, err = encodeAggregated(groups); err != nil {
		return nil, err
	}
	return d, nil
}

// groupOrder is the order in which kube-apiserver lists its built-in
// groups (by their APIService priorities); other groups, those of CRDs,
// follow by name.
var groupOrder = []string{"", "apiregistration.k8s.io", "apps", "events.k8s.io", "authentication.k8s.io",
	"authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io", "networking.k8s.io", "policy",
	"rbac.authorization.k8s.io", "storage.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io",
	"scheduling.k8s.io", "coordination.k8s.io", "node.k8s.io", "discovery.k8s.io", "resource.k8s.io",
	"flowcontrol.apiserver.k8s.io", "storagemigration.k8s.io"}

// byPriority orders group versions as kube-apiserver lists their groups,
// keeping each group's versions in the order given.
func byPriority(gvs []schema.GroupVersion) []schema.GroupVersion {
	rank := func(group string) int {
		if i := slices.Index(groupOrder, group); i >= 0 {
			return i
		}
		return len(groupOrder)
	}
	out := slices.Clone(gvs)
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := rank(out[i].Group), rank(out[j].Group)
		if ri != rj {
			return ri < rj
		}
		if ri == len(groupOrder) && out[i].Group != out[j].Group {
			return out[i].Group < out[j].Group
		}
		return false
	})
	return out
}

func encodeAggregated(l *apidiscoveryv2.APIGroupDiscoveryList) ([]byte, string, error) {
	l.TypeMeta = metav1.TypeMeta{APIVersion: "apidiscovery.k8s.io/v2", Kind: "APIGroupDiscoveryList"}
	data, err := json.Marshal(l)
	if err != nil {
		return nil, "", fmt.Errorf("encoding aggregated discovery: %w", err)
	}
	return data, fmt.Sprintf("%X", sha256.Sum256(data)), nil
}

// storageVersionHash names the version objects are stored in, as
// kube-apiserver computes it (the first 8 bytes of the SHA-256 of
// group/version/kind, base64): clients compare it to see a migration.
func storageVersionHash(res *registry.Resource) string {
	if res.StoredAs != nil {
		res = res.StoredAs.Resource
	}
	version := res.GVR.Version
	if res.Custom != nil && res.Custom.StorageVersion != "" {
		version = res.Custom.StorageVersion
	}
	sum := sha256.Sum256([]byte(res.GVR.Group + "/" + version + "/" + res.Kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

// wantsAggregated reports whether Accept prefers aggregated discovery.
func wantsAggregated(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		typ, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if params["as"] == "APIGroupDiscoveryList" && params["g"] == "apidiscovery.k8s.io" && params["v"] == "v2" && typ == "application/json" {
			return true
		}
		if params["as"] == "" {
			// The client prefers the legacy document.
			return false
		}
	}
	return false
}

// ServeHTTP serves the discovery paths; ok is false for other paths.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.Serve(w, r) {
		http.NotFound(w, r)
	}
}

// Serve serves r if its path is a discovery path and reports whether it did.
func (h *Handler) Serve(w http.ResponseWriter, r *http.Request) bool {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	d := h.cur.Load()
	switch {
	case len(parts) == 1 && parts[0] == "api":
		if wantsAggregated(r) {
			h.writeAggregated(w, r, d.aggCore, d.etagCore)
			return true
		}
		// kube-apiserver encodes /api with no group version: the answer
		// has a kind and no apiVersion.
		h.out.Object(w, r, http.StatusOK, &metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}}})
		return true
	case len(parts) == 1 && parts[0] == "apis":
		if wantsAggregated(r) {
			h.writeAggregated(w, r, d.aggGroups, d.etagGroups)
			return true
		}
		h.out.Object(w, r, http.StatusOK, d.groups.DeepCopy())
		return true
	case len(parts) == 2 && parts[0] == "api":
		if l, ok := d.resources[schema.GroupVersion{Version: parts[1]}]; ok {
			h.out.Object(w, r, http.StatusOK, l.DeepCopy())
			return true
		}
	case len(parts) == 2 && parts[0] == "apis":
		if g, ok := d.groupByName[parts[1]]; ok {
			h.out.Object(w, r, http.StatusOK, g.DeepCopy())
			return true
		}
	case len(parts) == 3 && parts[0] == "apis":
		if l, ok := d.resources[schema.GroupVersion{Group: parts[1], Version: parts[2]}]; ok {
			h.out.Object(w, r, http.StatusOK, l.DeepCopy())
			return true
		}
	}
	return false
}

func (h *Handler) writeAggregated(w http.ResponseWriter, r *http.Request, data []byte, etag string) {
	w.Header().Set("Content-Type", aggregatedMedia)
	w.Header().Set("Vary", "Accept")
	w.Header().Set("ETag", `"`+etag+`"`)
	if r.Header.Get("If-None-Match") == `"`+etag+`"` {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
}
