package registry

import (
	"fmt"
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// DefaultRoot is kube-apiserver's default --etcd-prefix, as a key prefix.
const DefaultRoot = "/registry/"

// cleanRoot turns an --etcd-prefix into a key prefix: absolute, clean,
// ending in "/" ("" is DefaultRoot), as kube-apiserver joins it to the
// resources' paths.
func cleanRoot(prefix string) (string, error) {
	if prefix == "" {
		return DefaultRoot, nil
	}
	if strings.ContainsAny(prefix, "\x00") {
		return "", fmt.Errorf("registry: storage prefix %q: contains a NUL byte", prefix)
	}
	p := path.Clean("/" + prefix)
	if p == "/" {
		return "/", nil
	}
	return p + "/", nil
}

// specialPaths are the resources kube-apiserver keeps under another name
// than their plural, for the names they had in etcd before they were
// renamed or moved between groups.
var specialPaths = map[schema.GroupResource]string{
	{Resource: "replicationcontrollers"}:                "controllers",
	{Resource: "endpoints"}:                             "services/endpoints",
	{Resource: "nodes"}:                                 "minions",
	{Resource: "services"}:                              "services/specs",
	{Group: "networking.k8s.io", Resource: "ingresses"}: "ingress",
}

// storagePath is where kube-apiserver keeps a resource's objects below the
// root: its own resources under their plural name alone, whatever their
// group (a few under special names); the API servers it embeds for
// CustomResourceDefinitions and APIServices, and custom resources, under
// group/resource. Matching it lets portcullis and kube-apiserver serve
// one etcd.
func storagePath(r *Resource) string {
	gr := r.GVR.GroupResource()
	if p, ok := specialPaths[gr]; ok {
		return p
	}
	if r.Custom != nil || gr.Group == "apiextensions.k8s.io" || gr.Group == "apiregistration.k8s.io" {
		return gr.Group + "/" + gr.Resource
	}
	return gr.Resource
}

// Move is one resource whose objects an earlier portcullis kept under
// another prefix.
type Move struct {
	Resource *Resource
	// From is the earlier prefix; the objects' keys have one segment
	// below it for cluster-scoped resources, two for namespaced ones,
	// which tells them apart from keys of the current layout that share
	// the prefix (services/specs/... below services/).
	From string
}

// LegacyMoves lists the built-in resources whose objects portcullis before
// kube-apiserver's layout kept elsewhere: /registry/<group>/<resource>/
// for every group but the core one, and the core resources under their
// plural.
func (reg *Registry) LegacyMoves() []Move {
	var out []Move
	for _, r := range reg.builtin.all {
		if r.StoredAs != nil || r.Virtual {
			continue
		}
		legacy := r.GVR.Resource
		if r.GVR.Group != "" {
			legacy = r.GVR.Group + "/" + legacy
		}
		if from := reg.root + legacy + "/"; from != r.KeyPrefix() {
			out = append(out, Move{Resource: r, From: from})
		}
	}
	return out
}
