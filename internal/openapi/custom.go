package openapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// CustomResource is a served resource whose schema comes from a
// CustomResourceDefinition: one served version of it.
//
// Resource names it: GVK and ListGVK (spec.names.kind and listKind in the
// version), Plural, Namespaced, and Subresources, among "status" and
// "scale". Verbs is not read: a custom resource has every verb, and
// kube-apiserver publishes every operation of it.
type CustomResource struct {
	Resource
	// Schema is the version's structural schema in kube-openapi form, as
	// structural.ToKubeOpenAPI writes it, with x-kubernetes-int-or-string
	// unfolded or not. The published model that internal/crd/schema's
	// Version.OpenAPI returns is accepted too: the apiVersion, kind and
	// metadata properties, x-kubernetes-group-version-kind and
	// x-kubernetes-selectable-fields in it are made again, the same. Nil
	// publishes an object of any content, as kube-apiserver does for a
	// version without a usable schema. It is not modified, and must not
	// be once given to SetCustom.
	Schema *spec.Schema
	// SelectableFields are the version's selectableFields JSON paths
	// (".spec.color"), published as x-kubernetes-selectable-fields. Nil
	// keeps those that Schema carries, if any.
	SelectableFields []string
}

// SetCustom replaces the custom resources of the documents with crs. It is
// safe to call at any time, concurrently with serving: clients see the new
// documents from their next request, which builds them (milliseconds for a
// v3 document, tens of them for v2; the built-in parts are serialized once
// for good). A custom resource unchanged since the last call (the same
// names, an equal schema) is not serialized again, nor is the document of
// a group-version whose resources are all unchanged; a call that changes
// nothing changes no document.
//
// The custom resources are published as kube-apiserver publishes them: in
// /openapi/v3/apis/<group>/<version>, a document of their own, and in
// /openapi/v2, merged with the built-in resources. Where a custom
// resource's group-version is also a built-in one, the built-in document
// of that group-version is the one published in v3 (kube-apiserver serves
// one of the two, either); in v2, as kube-apiserver merges, the custom
// paths that a built-in path has already are left out, the others
// published, and a custom definition whose name a built-in one has is
// renamed with _v2.
//
// An invalid custom resource (a missing name, an unknown subresource, a
// resource or kind given twice, a scale subresource without autoscaling/v1
// Scale in the scheme) makes SetCustom fail with ErrInvalidResource or
// ErrUnknownKind, and leaves the documents as they were.
func (d *Documents) SetCustom(crs []CustomResource) error {
	d.customMu.Lock()
	defer d.customMu.Unlock()
	prev := d.custom.Load()
	set := &customSet{
		byGVR:  make(map[schema.GroupVersionResource]*renderedCR, len(crs)),
		groups: map[string][]*renderedCR{},
		v2Defs: map[string]customDef{},
	}
	kinds := map[schema.GroupVersionKind]bool{}
	for _, cr := range crs {
		if err := d.validateCustom(cr); err != nil {
			return err
		}
		gvr := cr.GVK.GroupVersion().WithResource(cr.Plural)
		if set.byGVR[gvr] != nil {
			return fmt.Errorf("%w: custom resource %v listed twice", ErrInvalidResource, gvr)
		}
		for _, k := range []schema.GroupVersionKind{cr.GVK, cr.ListGVK} {
			if kinds[k] {
				return fmt.Errorf("%w: custom kind %v listed twice", ErrInvalidResource, k)
			}
			kinds[k] = true
		}
		r := prev.byGVR[gvr]
		if r == nil || !sameCustom(r.in, cr) {
			var err error
			if r, err = d.renderCustom(cr); err != nil {
				return fmt.Errorf("custom resource %v: %w", gvr, err)
			}
		}
		set.byGVR[gvr] = r
		set.all = append(set.all, r)
	}
	slices.SortFunc(set.all, func(a, b *renderedCR) int {
		return cmp.Or(strings.Compare(a.gvKey, b.gvKey), strings.Compare(a.in.Plural, b.in.Plural))
	})
	if slices.Equal(set.all, prev.all) {
		// Nothing changed: the documents stay, and so do their hashes.
		return nil
	}
	base := d.builtinGroups()
	for _, r := range set.all {
		if !base[r.gvKey] {
			set.groups[r.gvKey] = append(set.groups[r.gvKey], r)
		}
		for _, def := range r.defs {
			set.v2Defs[def.v2Name] = customDef{body: def.v2, refs: def.v2Refs}
		}
	}
	d.custom.Store(set)
	return nil
}

// customSet is what SetCustom accepted, serialized; it is never modified
// once published. A build is for one customSet, compared by pointer.
type customSet struct {
	all    []*renderedCR                               // by group-version, then plural
	byGVR  map[schema.GroupVersionResource]*renderedCR // to reuse the renderings of unchanged resources
	groups map[string][]*renderedCR                    // by gvPath, the custom group-versions that no built-in one shadows
	v2Defs map[string]customDef                        // every custom definition, by its v2 name
}

// customGroup is a custom group-version's v3 document and the resources it
// was made of.
type customGroup struct {
	members []*renderedCR
	doc     *groupDocument
}

// renderedCR is one custom resource serialized in both flavours.
type renderedCR struct {
	in    CustomResource // what it was made from, slices cloned
	gvKey string
	paths []renderedPath // sorted by path
	defs  []renderedDef  // the kind and the list kind
}

type renderedPath struct {
	path           string
	v2, v3         []byte
	v2Refs, v3Refs []string // the definitions its operations name
}

// renderedDef is a custom definition. Its v2 name differs from its v3 name
// when a built-in definition has that name.
type renderedDef struct {
	v2Name, v3Name string
	v2, v3         []byte
	v2Refs, v3Refs []string
}

// customDef is a custom definition in one flavour, with the definitions it
// refers to.
type customDef struct {
	body []byte
	refs []string
}

func (d *Documents) validateCustom(cr CustomResource) error {
	r := cr.Resource
	switch {
	case r.GVK.Group == "" || r.GVK.Version == "" || r.GVK.Kind == "":
		return fmt.Errorf("%w: custom resource %q has no group, version or kind", ErrInvalidResource, r.Plural)
	case r.Plural == "" || strings.ContainsAny(r.Plural, "/{}") || strings.ToLower(r.Plural) != r.Plural:
		return fmt.Errorf("%w: %v has plural %q", ErrInvalidResource, r.GVK, r.Plural)
	case r.ListGVK.Kind == "" || r.ListGVK.GroupVersion() != r.GVK.GroupVersion() || r.ListGVK.Kind == r.GVK.Kind:
		return fmt.Errorf("%w: %v has list kind %v", ErrInvalidResource, r.GVK, r.ListGVK)
	}
	for _, s := range r.Subresources {
		switch s {
		case "status":
		case "scale":
			if !d.hasScale {
				return fmt.Errorf("%w: %v has the scale subresource: %v", ErrUnknownKind, r.GVK, scaleGVK)
			}
		default:
			return fmt.Errorf("%w: %v has subresource %q; custom resources have status and scale", ErrInvalidResource, r.GVK, s)
		}
	}
	return nil
}

// sameCustom reports whether b would render as a does: same names, same
// schema. Schemas are not modified once given, so the same pointer is the
// same schema; a copy is compared (a fraction of what rendering costs).
func sameCustom(a, b CustomResource) bool {
	return a.GVK == b.GVK && a.ListGVK == b.ListGVK && a.Plural == b.Plural && a.Namespaced == b.Namespaced &&
		slices.Equal(a.Subresources, b.Subresources) &&
		slices.Equal(a.SelectableFields, b.SelectableFields) && (a.SelectableFields == nil) == (b.SelectableFields == nil) &&
		(a.Schema == b.Schema || reflect.DeepEqual(a.Schema, b.Schema))
}

// builtinGroups is the set of built-in group-versions, by gvPath.
func (d *Documents) builtinGroups() map[string]bool {
	out := make(map[string]bool, len(d.gvs))
	for _, gv := range d.gvs {
		out[gvPath(gv)] = true
	}
	return out
}

// renderCustom serializes the paths and definitions of one custom
// resource in both flavours.
func (d *Documents) renderCustom(cr CustomResource) (*renderedCR, error) {
	cr.Subresources = slices.Clone(cr.Subresources)
	cr.Verbs = slices.Clone(cr.Verbs)
	cr.SelectableFields = slices.Clone(cr.SelectableFields)
	r := &renderedCR{in: cr, gvKey: gvPath(cr.GVK.GroupVersion())}

	kindName, listName := customModelName(cr.GVK), customModelName(cr.ListGVK)
	r.defs = []renderedDef{
		{v3Name: kindName, v2Name: d.v2Name(kindName)},
		{v3Name: listName, v2Name: d.v2Name(listName)},
	}
	kind, list := &r.defs[0], &r.defs[1]
	for _, f := range []flavour{v2Flavour, v3Flavour} {
		kindRef := kindName
		if !f.v3 {
			kindRef = kind.v2Name
		}
		kindSchema := customKindSchema(cr, f)
		for def, s := range map[*renderedDef]*spec.Schema{kind: kindSchema, list: customListSchema(cr, kindSchema, kindRef, f)} {
			body, err := json.Marshal(s)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrBuild, def.v3Name, err)
			}
			refs := schemaRefs(s, f.refPrefix)
			if f.v3 {
				def.v3, def.v3Refs = body, refs
			} else {
				def.v2, def.v2Refs = body, refs
			}
		}
	}

	items := customPaths(cr.Resource, kindName, listName)
	v2Items := customPaths(cr.Resource, kind.v2Name, list.v2Name)
	for _, path := range slices.Sorted(maps.Keys(items)) {
		p := renderedPath{path: path}
		var err error
		if p.v3, err = json.Marshal(v3Writer.path(items[path])); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrBuild, path, err)
		}
		if p.v2, err = json.Marshal(v2Writer.path(v2Items[path])); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrBuild, path, err)
		}
		p.v3Refs = pathRefs(map[string]*pathItem{path: items[path]}, nil)
		p.v2Refs = pathRefs(map[string]*pathItem{path: v2Items[path]}, nil)
		r.paths = append(r.paths, p)
	}
	return r, nil
}

// v2Name is the name of a custom definition in the v2 document: its own,
// unless a built-in definition has it; then, as kube-apiserver renames
// conflicting definitions when it merges documents, name_v2 (or _v3...).
func (d *Documents) v2Name(name string) string {
	out := name
	for i := 2; d.defs[out] != nil; i++ {
		out = fmt.Sprintf("%s_v%d", name, i)
	}
	return out
}

// customModelName is kube-apiserver's definition name of a custom kind:
// the group reversed, the version and the kind (com.example.stable.v1.CronTab).
func customModelName(k schema.GroupVersionKind) string {
	parts := strings.Split(k.Group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + k.Version + "." + k.Kind
}

// reach returns the definitions reachable from roots, through the custom
// definitions of custom (which shadow built-in ones of the same name) and
// the built-in model.
func (d *Documents) reach(roots []string, custom map[string]customDef) map[string]bool {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		if c, ok := custom[name]; ok {
			for _, r := range c.refs {
				visit(r)
			}
			return
		}
		d.defs[name].refs(visit)
	}
	for _, r := range roots {
		visit(r)
	}
	return seen
}

// The info of the custom group-versions' documents: kube-apiserver serves
// them as its CRD builder makes them, under this title, without security
// schemes.
var customInfo = wireInfo{Title: "Kubernetes CRD Swagger", Version: "v0.1.0"}

// renderCustomV3 serializes the v3 document of one custom group-version:
// the paths of its resources and every definition they reach.
func (d *Documents) renderCustomV3(members []*renderedCR, builtinDefs map[string][]byte) ([]byte, error) {
	head, err := json.Marshal(struct {
		OpenAPI string   `json:"openapi"`
		Info    wireInfo `json:"info"`
	}{"3.0.0", customInfo})
	if err != nil {
		return nil, fmt.Errorf("%w: v3: %w", ErrBuild, err)
	}
	paths := map[string][]byte{}
	custom := map[string]customDef{}
	var roots []string
	for _, r := range members {
		for _, p := range r.paths {
			paths[p.path] = p.v3
			roots = append(roots, p.v3Refs...)
		}
		for _, def := range r.defs {
			custom[def.v3Name] = customDef{body: def.v3, refs: def.v3Refs}
		}
	}
	used := map[string][]byte{}
	for name := range d.reach(roots, custom) {
		if c, ok := custom[name]; ok {
			used[name] = c.body
		} else {
			used[name] = builtinDefs[name]
		}
	}
	var b bytes.Buffer
	b.Write(head[:len(head)-1])
	b.WriteString(`,"paths":`)
	writeObject(&b, paths)
	b.WriteString(`,"components":{"schemas":`)
	writeObject(&b, used)
	b.WriteString(`}}`)
	return b.Bytes(), nil
}
