// Package registry is the table of REST resources portcullis serves: for
// each one its group, version, kind, scope, subresources, short names and
// the few per-type facts the generic REST code needs (which fields a field
// selector may use, whether writes bump metadata.generation, how the status
// subresource splits the object). Discovery, OpenAPI, the REST handlers and
// the storage keys are all derived from this one table.
package registry
