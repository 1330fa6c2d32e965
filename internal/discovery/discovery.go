package discovery

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"

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

// Handler serves discovery.
type Handler struct {
	out         Writer
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
	h := &Handler{
		out:         out,
		groups:      &metav1.APIGroupList{},
		groupByName: map[string]*metav1.APIGroup{},
		resources:   map[schema.GroupVersion]*metav1.APIResourceList{},
	}
	agg := map[string]*apidiscoveryv2.APIGroupDiscovery{}
	var aggOrder []string
	for _, gv := range reg.GroupVersions() {
		h.resources[gv] = &metav1.APIResourceList{GroupVersion: gv.String()}
		if gv.Group != "" {
			if _, ok := h.groupByName[gv.Group]; !ok {
				gvd := metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version}
				g := metav1.APIGroup{Name: gv.Group, Versions: []metav1.GroupVersionForDiscovery{gvd}, PreferredVersion: gvd}
				h.groups.Groups = append(h.groups.Groups, g)
				h.groupByName[gv.Group] = &h.groups.Groups[len(h.groups.Groups)-1]
			}
		}
		if _, ok := agg[gv.Group]; !ok {
			agg[gv.Group] = &apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: gv.Group},
				Versions: []apidiscoveryv2.APIVersionDiscovery{{Version: gv.Version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}}}
			aggOrder = append(aggOrder, gv.Group)
		}
	}
	// Pointers into the slice above may have moved while appending.
	for i := range h.groups.Groups {
		h.groupByName[h.groups.Groups[i].Name] = &h.groups.Groups[i]
	}
	for _, res := range reg.All() {
		gv := res.GVR.GroupVersion()
		list := h.resources[gv]
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
		g := agg[gv.Group]
		g.Versions[0].Resources = append(g.Versions[0].Resources, rd)
	}
	var err error
	core := &apidiscoveryv2.APIGroupDiscoveryList{Items: []apidiscoveryv2.APIGroupDiscovery{*agg[""]}}
	groups := &apidiscoveryv2.APIGroupDiscoveryList{}
	for _, name := range aggOrder {
		if name != "" {
			groups.Items = append(groups.Items, *agg[name])
		}
	}
	if h.aggCore, h.etagCore, err = encodeAggregated(core); err != nil {
		return nil, err
	}
	if h.aggGroups, h.etagGroups, err = encodeAggregated(groups); err != nil {
		return nil, err
	}
	return h, nil
}

func encodeAggregated(l *apidiscoveryv2.APIGroupDiscoveryList) ([]byte, string, error) {
	l.TypeMeta = metav1.TypeMeta{APIVersion: "apidiscovery.k8s.io/v2", Kind: "APIGroupDiscoveryList"}
	data, err := json.Marshal(l)
	if err != nil {
		return nil, "", fmt.Errorf("encoding aggregated discovery: %w", err)
	}
	return data, fmt.Sprintf("%X", sha256.Sum256(data)), nil
}

// storageVersionHash is an opaque hash of the stored version, which
// clients use only to compare.
func storageVersionHash(res *registry.Resource) string {
	sum := sha256.Sum256([]byte(res.GVR.Group + "/" + res.GVR.Version + "/" + res.Kind))
	return fmt.Sprintf("%x", sum[:8])[:11]
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
	switch {
	case len(parts) == 1 && parts[0] == "api":
		if wantsAggregated(r) {
			h.writeAggregated(w, r, h.aggCore, h.etagCore)
			return true
		}
		h.out.Object(w, r, http.StatusOK, &metav1.APIVersions{Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}}})
		return true
	case len(parts) == 1 && parts[0] == "apis":
		if wantsAggregated(r) {
			h.writeAggregated(w, r, h.aggGroups, h.etagGroups)
			return true
		}
		h.out.Object(w, r, http.StatusOK, h.groups.DeepCopy())
		return true
	case len(parts) == 2 && parts[0] == "api":
		if l, ok := h.resources[schema.GroupVersion{Version: parts[1]}]; ok {
			h.out.Object(w, r, http.StatusOK, l.DeepCopy())
			return true
		}
	case len(parts) == 2 && parts[0] == "apis":
		if g, ok := h.groupByName[parts[1]]; ok {
			h.out.Object(w, r, http.StatusOK, g.DeepCopy())
			return true
		}
	case len(parts) == 3 && parts[0] == "apis":
		if l, ok := h.resources[schema.GroupVersion{Group: parts[1], Version: parts[2]}]; ok {
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
