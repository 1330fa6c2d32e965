// Package validation checks objects the way kube-apiserver does on create and
// update, so that portcullis rejects exactly what the reference rejects, with
// the same field paths and messages.
//
// # Entry points
//
// Create validates a new object; Update validates an object replacing an
// older one and adds the immutability rules; StatusUpdate validates a write
// through the status subresource (its own rules for
// CustomResourceDefinitions, Update's for every other kind). All take the
// typed objects the server serves and return a field.ErrorList, which the
// API layer turns into a 422 Invalid Status.
//
// # What the caller must do first
//
// kube-apiserver decodes with defaulting, so its validators never see the
// holes that defaulting fills. Callers run defaults.Apply before Create and
// Update. The request layer is also expected to have done what
// kube-apiserver does before validation: clear metadata.namespace on
// cluster-scoped objects (a namespaced object carries the request's
// namespace), generate names from generateName, and, on an unconditional
// update, copy the stored resourceVersion into the new object.
//
// # Layout
//
// One file per API group (core is split by kind): each holds the validator
// for create and the extra rules for update. meta.go holds the name rule and
// scope of every kind. CEL expressions are not compiled here: structure,
// required fields, enum values and limits only. The exception is
// CustomResourceDefinitions (apiextensions.go), which crd/definition
// checks with apiextensions' own library, schemas and CEL rules included.
package validation
