// Package admission is the admission chain every write passes through:
// mutating plugins in order, then (in the REST layer) object validation,
// then validating plugins. Plugins see one Attributes value per request.
// The chain is a plain pair of slices; an empty chain admits everything.
package admission
