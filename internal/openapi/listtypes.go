package openapi

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/applyconfigurations"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
)

// The +listType, +listMapKey, +mapType and +structType markers of the
// k8s.io/api types are source comments that reflection cannot see. client-go
// ships them, compiled into the structured-merge-diff schema behind its apply
// configurations; this file reads them back from there.

// smdSchema returns the structured-merge-diff schema of the built-in types,
// or nil if it cannot be had. Parsing it costs tens of milliseconds, once
// per process (client-go caches it).
func smdSchema() *smdschema.Schema {
	probe := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}
	tv, err := applyconfigurations.NewTypeConverter(clientgoscheme.Scheme).ObjectToTyped(probe)
	if err != nil {
		return nil
	}
	return tv.Schema()
}

// annotateLists sets the list and map type extensions of every definition:
// from the structured-merge-diff schema for the types it knows, and for the
// others from the patch merge key alone (a list merged by key is a map keyed
// by it).
func annotateLists(defs map[string]*node, smd *smdschema.Schema) {
	for name, def := range defs {
		var td smdschema.TypeDef
		known := false
		if smd != nil {
			td, known = smd.FindNamedType(name)
		}
		if !known || td.Map == nil {
			for _, p := range def.Properties {
				if p.PatchMergeKey != "" && p.Type == "array" && p.ListType == "" {
					p.ListType, p.ListMapKeys = "map", []string{p.PatchMergeKey}
				}
			}
			continue
		}
		if td.Map.ElementRelationship == smdschema.Atomic && def.Properties != nil {
			def.MapType = "atomic"
		}
		for _, f := range td.Map.Fields {
			p := def.Properties[f.Name]
			if p == nil {
				continue
			}
			atom, ok := smd.Resolve(f.Type)
			if !ok {
				continue
			}
			switch {
			case atom.List != nil && p.Type == "array":
				switch atom.List.ElementRelationship {
				case smdschema.Associative:
					if len(atom.List.Keys) > 0 {
						p.ListType, p.ListMapKeys = "map", atom.List.Keys
					} else {
						p.ListType = "set"
					}
				case smdschema.Atomic:
					p.ListType = "atomic"
				}
			case atom.Map != nil && p.AdditionalProperties != nil:
				if atom.Map.ElementRelationship == smdschema.Atomic {
					p.MapType = "atomic"
				}
			}
		}
	}
}
