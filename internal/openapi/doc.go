// Package openapi publishes the OpenAPI v2 (/openapi/v2) and v3
// (/openapi/v3, /openapi/v3/<api|apis/group>/<version>) documents of the
// served resources, shaped like kube-apiserver's so that kubectl's explain,
// its client-side apply (strategic merge patch computed from the v3 schema)
// and its fieldValidation support check work unchanged.
//
// # How the pieces fit
//
// New reflects over the Go types that the scheme holds for the served kinds
// (reflect.go): definition names come from OpenAPIModelName or the package
// path, descriptions from SwaggerDoc, field names and optionality from the
// json tags (corrected by the +optional/+required markers that gen_markers.go
// extracts from the k8s.io/api sources into zz_generated.markers.go), patch
// strategies from the patchStrategy/patchMergeKey tags, and the wrapper
// types with their own JSON form (Time, Quantity, IntOrString, ...) from
// their OpenAPISchemaType methods. paths.go turns each Resource into
// kube-apiserver's paths and operations; params.go holds the query
// parameters, documented from the meta/v1 option types. Both form a
// flavour-neutral model (schema.go).
//
// Rendering is lazy (build.go). The built-in part is serialized once, on
// the first request or on Warm: the list and map types (listtypes.go) are
// looked up in the structured-merge-diff schema that client-go ships, which
// takes tens of milliseconds to parse, and the documents run to megabytes.
// Each definition is serialized once per flavour (wire.go) and the
// documents are assembled from those bytes (v2.go, v3.go). The protobuf
// forms are derived from the JSON through gnostic only when a client asks
// for them. After that, serving is a lookup of cached bytes (handler.go),
// with ETags, 304s and, for v3, the ?hash= cache busting of the reference.
//
// # Custom resources
//
// SetCustom (custom.go) publishes the served versions of
// CustomResourceDefinitions as kube-apiserver's CRD OpenAPI builder does:
// their operations (crpaths.go) and the definitions of their kinds and
// lists (crschema.go), named com.example.stable.v1.CronTab, with the
// schema converted for v2. It serializes each custom resource in both
// flavours at once, reusing what it serialized for an unchanged one, and
// publishes the new set with an atomic pointer. The next request builds
// the documents of that set from the built-in bytes and the custom ones:
// each custom group-version's own v3 document (made again only if its
// resources changed), the v3 index and, when first asked for, the v2
// document. Requests that find the documents of the current set take no
// lock. The SchemaResolver reads the v3 documents, so it follows.
package openapi

//go:generate go run gen_markers.go
