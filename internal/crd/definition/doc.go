// Package definition is the CustomResourceDefinition object itself, as
// kube-apiserver v1.37 serves apiextensions.k8s.io/v1
// customresourcedefinitions: its defaults, its validation, the fields the
// server owns on a write, and the rules that fill its status (accepted
// names and conditions). Serving the custom resources a definition
// describes is someone else's job; so is validating those resources
// against the definition's schemas.
//
// # Validation
//
// Default, ValidateCreate, ValidateUpdate and ValidateStatusUpdate take
// the published v1 type. The checks themselves are
// k8s.io/apiextensions-apiserver's pkg/apis/apiextensions/validation
// (structural schemas, CEL rules and their cost limits, conversion,
// names), which works on the internal apiextensions type: the v1 object
// is copied and converted with the generated v1 conversions first, exactly
// as kube-apiserver decodes it. That conversion moves a schema shared by
// every version to the top-level spec.validation, so errors in such a
// schema carry kube-apiserver's paths, "spec.validation.openAPIV3Schema...".
// WarningsOnCreate and WarningsOnUpdate are the warnings kube-apiserver
// sends with a write (unrecognized formats, list-type set of non-scalars).
//
// # The server-owned fields
//
// PrepareForCreate and PrepareForUpdate are the rules of kube-apiserver's
// CRD strategy that the generic REST layer does not already apply: a new
// definition's status is empty but for status.storedVersions, which holds
// the storage version; an update keeps the stored status and adds the
// storage version to status.storedVersions when it changes. Generation and
// the split between the main resource and /status are generic.
//
// # Status rules
//
// AcceptNames, EstablishedCondition and APIApprovalCondition are
// kube-apiserver's naming, establishing and API approval controllers as
// pure functions of a definition (and, for names, all the definitions of
// its group): internal/controllers/crdstatus runs them and writes their
// outcome through /status. SetCondition, FindCondition, IsEstablished,
// HasServedVersion and StorageVersion are the helpers the server's other
// parts need to read a definition.
package definition
