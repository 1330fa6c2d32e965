package openapi

import (
	"slices"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// pathItem is one URL template with its operations, flavour-neutral.
type pathItem struct {
	GV     schema.GroupVersion
	Params []param // shared by all operations: path segments and pretty
	Ops    []operation
}

// operation is one HTTP method on a pathItem.
type operation struct {
	Method      string // get, put, post, patch, delete
	ID          string
	Description string
	Tag         string
	Action      string // x-kubernetes-action; empty for discovery
	GVK         *gvk
	Params      []param
	Body        string // definition name of the request body; empty for none
	// BodyOptional says the body may be left out (custom resources'
	// delete: kube-apiserver's CRD builder marks DeleteOptions so).
	BodyOptional bool
	Consumes     []string // media types of the body; nil for any
	Produces     []string
	Responses    []response
}

type response struct {
	Code        string
	Description string
	Ref         string // definition name of the response body; empty for none
}

var (
	mediaTypes      = []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf"}
	watchMediaTypes = []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf", "application/json;stream=watch", "application/vnd.kubernetes.protobuf;stream=watch"}
	patchMediaTypes = []string{"application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"}

	unauthorized = response{Code: "401", Description: "Unauthorized"}
)

// Definitions that operations use whatever the resource.
const (
	statusDef        = "io.k8s.apimachinery.pkg.apis.meta.v1.Status"
	deleteOptionsDef = "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions"
	patchDef         = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"
	watchEventDef    = "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"
	resourceListDef  = "io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList"
	scaleDef         = "io.k8s.api.autoscaling.v1.Scale"
)

var scaleGVK = schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}

// subresource says how kube-apiserver publishes a subresource: the kind
// its operations take and return and which operations there are. Nil kind
// means the parent's kind.
type subresource struct {
	kind  *schema.GroupVersionKind
	verbs []string // among get, update, patch, create
}

// subresources lists the subresources this package publishes. Others
// (log, exec, attach, portforward, proxy: connect operations) are left out
// of the documents, which kubectl does not need them in.
var subresources = map[string]subresource{
	"status":              {verbs: []string{"get", "update", "patch"}},
	"ephemeralcontainers": {verbs: []string{"get", "update", "patch"}},
	"resize":              {verbs: []string{"get", "update", "patch"}},
	"approval":            {verbs: []string{"get", "update", "patch"}},
	"scale":               {kind: &scaleGVK, verbs: []string{"get", "update", "patch"}},
	"binding":             {kind: &schema.GroupVersionKind{Version: "v1", Kind: "Binding"}, verbs: []string{"create"}},
	"eviction":            {kind: &schema.GroupVersionKind{Group: "policy", Version: "v1", Kind: "Eviction"}, verbs: []string{"create"}},
	"token":               {kind: &schema.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenRequest"}, verbs: []string{"create"}},
}

// gvNames holds the spellings of a group-version in URLs, operation IDs and
// tags.
type gvNames struct {
	prefix string // "/api/v1", "/apis/apps/v1"
	id     string // "CoreV1", "RbacAuthorizationV1"
	tag    string // "core_v1", "rbacAuthorization_v1"
}

func namesOf(gv schema.GroupVersion) gvNames {
	group := "core"
	prefix := "/api/" + gv.Version
	if gv.Group != "" {
		prefix = "/apis/" + gv.Group + "/" + gv.Version
		group = strings.TrimSuffix(gv.Group, ".k8s.io")
	}
	return gvNames{
		prefix: prefix,
		id:     identifier(group, true) + identifier(gv.Version, true),
		tag:    identifier(group, false) + "_" + identifier(gv.Version, false),
	}
}

// identifier spells s as kube-apiserver spells groups and versions in
// operation IDs and tags: what is neither a letter, an underscore nor a
// digit after the first character is dropped, and the letter after it is
// capitalized ("cert-manager.io" is certManagerIo).
func identifier(s string, capitalize bool) string {
	var b strings.Builder
	for i, r := range s {
		if !unicode.IsLetter(r) && r != '_' && (i == 0 || !unicode.IsDigit(r)) {
			capitalize = true
			continue
		}
		if capitalize {
			r = unicode.ToUpper(r)
			capitalize = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// article is what kube-apiserver puts between a verb and a kind in
// descriptions: " a ", " an " before a vowel, and a space alone before a
// plural (Endpoints).
func article(kind string) string {
	switch {
	case strings.HasSuffix(kind, "s") && !strings.HasSuffix(kind, "ss"):
		return " "
	case kind != "" && strings.ContainsRune("aeiouAEIOU", rune(kind[0])):
		return " an "
	}
	return " a "
}

// resourcePaths adds the paths of one resource to paths. defs resolves a
// kind to its definition name.
func resourcePaths(paths map[string]*pathItem, r Resource, defs func(schema.GroupVersionKind) string) {
	gv := r.GVK.GroupVersion()
	n := namesOf(gv)
	kind := r.GVK.Kind
	kindDef := defs(r.GVK)
	self := &gvk{Group: r.GVK.Group, Version: r.GVK.Version, Kind: kind}
	scope, nsSegment := "", ""
	var nsParams []param
	if r.Namespaced {
		scope, nsSegment = "Namespaced", "/namespaces/{namespace}"
		nsParams = []param{namespaceParam}
	}
	collection := n.prefix + nsSegment + "/" + r.Plural
	item := collection + "/{name}"
	collectionParams := append(slices.Clone(nsParams), prettyParam)
	itemParams := sortedParams(append([]param{nameParam(kind), prettyParam}, nsParams...))
	has := func(verb string) bool { return slices.Contains(r.Verbs, verb) }
	op := func(method, verb, action, description string, params []param) operation {
		return operation{
			Method: method, ID: verb + n.id + scope + kind, Description: description, Tag: n.tag,
			Action: action, GVK: self, Params: params, Produces: mediaTypes,
		}
	}
	add := func(path string, params []param, o operation) {
		p := paths[path]
		if p == nil {
			p = &pathItem{GV: gv, Params: params}
			paths[path] = p
		}
		p.Ops = append(p.Ops, o)
	}
	ok := func(ref string, codes ...string) []response {
		var rs []response
		for _, c := range codes {
			rs = append(rs, response{Code: c, Description: httpDescriptions[c], Ref: ref})
		}
		return append(rs, unauthorized)
	}

	if has("list") {
		o := op("get", "list", "list", "list or watch objects of kind "+kind, listParams)
		o.Produces, o.Responses = watchMediaTypes, ok(defs(r.ListGVK), "200")
		add(collection, collectionParams, o)
		if r.Namespaced {
			o.ID = "list" + n.id + kind + "ForAllNamespaces"
			add(n.prefix+"/"+r.Plural, []param{prettyParam}, o)
		}
	}
	if has("create") {
		o := op("post", "create", "post", "create"+article(kind)+kind, createParams)
		o.Body, o.Responses = kindDef, ok(kindDef, "200", "201", "202")
		add(collection, collectionParams, o)
	}
	if has("deletecollection") {
		o := op("delete", "delete", "deletecollection", "delete collection of "+kind, deleteCollectionParams)
		o.ID = "delete" + n.id + "Collection" + scope + kind
		o.Body, o.Responses = deleteOptionsDef, ok(statusDef, "200")
		add(collection, collectionParams, o)
	}
	if has("get") {
		o := op("get", "read", "get", "read the specified "+kind, nil)
		o.Responses = ok(kindDef, "200")
		add(item, itemParams, o)
	}
	if has("update") {
		o := op("put", "replace", "put", "replace the specified "+kind, updateParams)
		o.Body, o.Responses = kindDef, ok(kindDef, "200", "201")
		add(item, itemParams, o)
	}
	if has("delete") {
		o := op("delete", "delete", "delete", "delete"+article(kind)+kind, deleteParams)
		o.Body, o.Responses = deleteOptionsDef, ok(statusDef, "200", "202")
		add(item, itemParams, o)
	}
	if has("patch") {
		o := op("patch", "patch", "patch", "partially update the specified "+kind, patchParams)
		o.Body, o.Consumes, o.Responses = patchDef, patchMediaTypes, ok(kindDef, "200", "201")
		add(item, itemParams, o)
	}
	if has("watch") {
		watchItem := op("get", "watch", "watch", "watch changes to an object of kind "+kind+". deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.", listParams)
		watchItem.Produces, watchItem.Responses = watchMediaTypes, ok(watchEventDef, "200")
		add(n.prefix+"/watch"+nsSegment+"/"+r.Plural+"/{name}", itemParams, watchItem)

		watchList := watchItem
		watchList.ID += "List"
		watchList.Action = "watchlist"
		watchList.Description = "watch individual changes to a list of " + kind + ". deprecated: use the 'watch' parameter with a list operation instead."
		add(n.prefix+"/watch"+nsSegment+"/"+r.Plural, collectionParams, watchList)
		if r.Namespaced {
			watchList.ID = "watch" + n.id + kind + "ListForAllNamespaces"
			add(n.prefix+"/watch/"+r.Plural, []param{prettyParam}, watchList)
		}
	}

	for _, name := range r.Subresources {
		sub, known := subresources[name]
		if !known {
			continue
		}
		subGVK, subDef := self, kindDef
		if sub.kind != nil {
			subGVK = &gvk{Group: sub.kind.Group, Version: sub.kind.Version, Kind: sub.kind.Kind}
			subDef = defs(*sub.kind)
		}
		path := item + "/" + name
		suffix := upperFirst(name)
		subOp := func(method, verb, action, description string, params []param) operation {
			o := op(method, verb, action, description, params)
			o.ID += suffix
			o.GVK = subGVK
			return o
		}
		for _, verb := range sub.verbs {
			var o operation
			switch verb {
			case "get":
				o = subOp("get", "read", "get", "read "+name+" of the specified "+kind, nil)
				o.Responses = ok(subDef, "200")
			case "update":
				o = subOp("put", "replace", "put", "replace "+name+" of the specified "+kind, updateParams)
				o.Body, o.Responses = subDef, ok(subDef, "200", "201")
			case "patch":
				o = subOp("patch", "patch", "patch", "partially update "+name+" of the specified "+kind, patchParams)
				o.Body, o.Consumes, o.Responses = patchDef, patchMediaTypes, ok(subDef, "200", "201")
			case "create":
				o = subOp("post", "create", "post", "create "+name+" of"+article(kind)+kind, createParams)
				o.Body, o.Responses = subDef, ok(subDef, "200", "201", "202")
			}
			add(path, itemParams, o)
		}
	}
}

// discoveryPath adds the "get available resources" operation of a
// group-version.
func discoveryPath(paths map[string]*pathItem, gv schema.GroupVersion) {
	n := namesOf(gv)
	paths[n.prefix+"/"] = &pathItem{GV: gv, Ops: []operation{{
		Method: "get", ID: "get" + n.id + "APIResources", Description: "get available resources",
		Tag: n.tag, Consumes: mediaTypes, Produces: mediaTypes,
		Responses: []response{{Code: "200", Description: "OK", Ref: resourceListDef}, unauthorized},
	}}}
}

var httpDescriptions = map[string]string{"200": "OK", "201": "Created", "202": "Accepted"}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
