package openapi

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The operations of a custom resource, as kube-apiserver's CRD OpenAPI
// builder lays them out; they differ from a built-in resource's in that:
//
//   - there are no watch paths (a watch is a list with ?watch=true);
//   - every operation consumes and produces JSON and YAML only, patches
//     JSON, merge and apply patches (no strategic merge: kubectl apply
//     falls back to a merge patch on seeing so);
//   - read takes resourceVersion, deletecollection the list parameters
//     (with watch) and no body, delete an optional DeleteOptions body, and
//     patch answers 200 only;
//   - the status and scale subresources' operations carry the custom
//     kind's x-kubernetes-group-version-kind, the scale ones with
//     autoscaling/v1 Scale for body and answer;
//   - the parameters that every operation of a path has (pretty, the path
//     segments, or all of them for a path with one operation) are the
//     path's, as kube-openapi factors them out.

var (
	customMediaTypes = []string{"application/json", "application/yaml"}
	customPatchTypes = []string{"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"}

	getDocs        = metav1.GetOptions{}.SwaggerDoc()
	customGetParam = []param{query("resourceVersion", "string", getDocs)}
)

// customPaths returns the paths of a custom resource, whose kind and list
// kind have the definitions kindDef and listDef.
func customPaths(r Resource, kindDef, listDef string) map[string]*pathItem {
	gv := r.GVK.GroupVersion()
	n := namesOf(gv)
	kind := r.GVK.Kind
	self := &gvk{Group: r.GVK.Group, Version: r.GVK.Version, Kind: kind}
	scope := ""
	root := n.prefix + "/" + r.Plural
	if r.Namespaced {
		scope = "Namespaced"
		root = n.prefix + "/namespaces/{namespace}/" + r.Plural
	}
	ops := map[string][]operation{}
	add := func(path, method, verb, action, description string, params []param, body string, responses ...response) {
		o := operation{
			Method: method, ID: verb + n.id + scope + kind, Description: description, Tag: n.tag,
			Action: action, GVK: self, Params: slices.Clone(params), Body: body,
			Consumes: customMediaTypes, Produces: customMediaTypes,
			Responses: append(responses, unauthorized),
		}
		o.Params = append(o.Params, prettyParam)
		if strings.Contains(path, "{namespace}") {
			o.Params = append(o.Params, namespaceParam)
		}
		if strings.Contains(path, "{name}") {
			o.Params = append(o.Params, nameParam(kind))
		}
		switch method {
		case "patch":
			o.Consumes = customPatchTypes
		case "delete":
			o.BodyOptional = true
		}
		ops[path] = append(ops[path], o)
	}
	ok := func(ref string) response { return response{Code: "200", Description: "OK", Ref: ref} }
	created := func(ref string) response { return response{Code: "201", Description: "Created", Ref: ref} }
	accepted := func(ref string) response { return response{Code: "202", Description: "Accepted", Ref: ref} }

	if r.Namespaced {
		add(n.prefix+"/"+r.Plural, "get", "list", "list", "list objects of kind "+kind, listParams, "", ok(listDef))
		all := &ops[n.prefix+"/"+r.Plural][0]
		all.ID = "list" + n.id + kind + "ForAllNamespaces"
	}
	add(root, "get", "list", "list", "list objects of kind "+kind, listParams, "", ok(listDef))
	add(root, "post", "create", "post", "create"+article(kind)+kind, createParams, kindDef, ok(kindDef), accepted(kindDef), created(kindDef))
	add(root, "delete", "delete", "deletecollection", "delete collection of "+kind, listParams, "", ok(statusDef))
	ops[root][len(ops[root])-1].ID = "delete" + n.id + "Collection" + scope + kind

	item := root + "/{name}"
	add(item, "get", "read", "get", "read the specified "+kind, customGetParam, "", ok(kindDef))
	add(item, "put", "replace", "put", "replace the specified "+kind, updateParams, kindDef, ok(kindDef), created(kindDef))
	add(item, "delete", "delete", "delete", "delete"+article(kind)+kind, deleteParams, deleteOptionsDef, ok(statusDef), accepted(statusDef))
	add(item, "patch", "patch", "patch", "partially update the specified "+kind, patchParams, patchDef, ok(kindDef))

	for _, sub := range []string{"status", "scale"} {
		if !slices.Contains(r.Subresources, sub) {
			continue
		}
		def := kindDef
		if sub == "scale" {
			def = scaleDef
		}
		path := item + "/" + sub
		first := len(ops[path])
		add(path, "get", "read", "get", "read "+sub+" of the specified "+kind, customGetParam, "", ok(def))
		add(path, "put", "replace", "put", "replace "+sub+" of the specified "+kind, updateParams, def, ok(def), created(def))
		add(path, "patch", "patch", "patch", "partially update "+sub+" of the specified "+kind, patchParams, patchDef, ok(def))
		for i := first; i < len(ops[path]); i++ {
			ops[path][i].ID += upperFirst(sub)
		}
	}

	items := make(map[string]*pathItem, len(ops))
	for path, list := range ops {
		items[path] = factorParams(gv, list)
	}
	return items
}

// factorParams makes the path item of ops, with the parameters that all
// of them have moved to the path, sorted by name as kube-openapi sorts
// them.
func factorParams(gv schema.GroupVersion, ops []operation) *pathItem {
	count := map[param]int{}
	for _, o := range ops {
		for _, p := range o.Params {
			count[p]++
		}
	}
	item := &pathItem{GV: gv}
	for p, c := range count {
		if c == len(ops) {
			item.Params = append(item.Params, p)
		}
	}
	item.Params = sortedParams(item.Params)
	for _, o := range ops {
		o.Params = sortedParams(slices.DeleteFunc(slices.Clone(o.Params), func(p param) bool { return count[p] == len(ops) }))
		if len(o.Params) == 0 {
			o.Params = nil
		}
		item.Ops = append(item.Ops, o)
	}
	return item
}
