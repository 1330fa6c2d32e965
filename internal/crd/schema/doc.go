// Package schema is the per-version schema machinery of a
// CustomResourceDefinition: what kube-apiserver does with the schema,
// subresources, printer columns and selectable fields of one version when
// it serves custom resources, so that portcullis accepts, rejects,
// reshapes, prints and publishes them exactly as kube-apiserver does.
//
// # Compiling
//
// Compile turns one version of an established CustomResourceDefinition
// (validated, with accepted names) into an immutable Version, doing every
// costly step once: the structural schema (defaults pruned), the
// kube-openapi validators, the CEL programs of the
// x-kubernetes-validations rules, the printer columns, the selectable
// fields, the OpenAPI models and the type converter. A changed
// CustomResourceDefinition is compiled again; a Version is safe for
// concurrent use. A rule that does not compile is reported with its path
// (RuleCompileError) but does not stop the version from being served, as
// in kube-apiserver, whose objects then fail at that rule's node.
//
// # The request path
//
// In kube-apiserver's order, for a create (update alike):
//
//	parse JSON/YAML ─► Coerce (metadata, prune, nulls, embedded metadata; the unknown fields for fieldValidation)
//	  ─► Default ─► name generation, namespace by scope ─► PrepareForCreate / PrepareForUpdate
//	  ─► mutating admission (a patched object is defaulted again)
//	  ─► ValidateCreate / ValidateUpdate ─► validating admission ─► WarningsOnCreate / WarningsOnUpdate
//	  ─► Coerce with the storage version's Version on the way to storage ─► store
//
// kube-apiserver's storage encoder coerces every object it converts to
// the storage version, which is where fields added by webhooks are
// pruned. Through /status: PrepareForStatusUpdate, then
// ValidateStatusUpdate. An object read from storage goes through
// CoerceStored and Default (storage version), then, converted to the
// version asked for, through that version's Coerce, on every read.
//
// Fields and ConvertFieldLabel serve field selectors, Table the Table
// output of get and list, ResetFields and TypeConverter (or
// NewTypeConverter, over all versions) the field manager of server-side
// apply, OpenAPI the kind's v3 model for the published documents (which
// internal/openapi turns into v2 as well) and the type checker of
// admission policies. Each object goes to the Version its
// apiVersion names.
//
// # Fidelity
//
// The checks themselves are k8s.io/apiextensions-apiserver's schema
// libraries, called as its custom resource handler and strategies call
// them: structural schema, pruning, defaulting, objectmeta coercion and
// validation, list types, the CEL validator, the kube-openapi validator
// with ratcheting. The texts and paths of their errors are therefore
// kube-apiserver's, and the tests pin them. Written here from
// kube-apiserver's behaviour, because they live in its registry,
// controller or handler packages: the validation order and the rule that
// structural errors keep the CEL rules from running, the type and scale
// checks, the strategies' preparation and finalizer warnings, the table
// convertor, the selectable fields, the OpenAPI builder's additions and
// its OpenAPI v2 simplification.
//
// CEL rules run with celbase's environment and limits: the validator of
// apiextensions takes the environment package's EnvSet for the default
// compatibility version, which is the very EnvSet of celbase.BaseEnvSet;
// each call is bounded by celbase.PerCallLimit and the rules of one object
// by celbase.RuntimeCELCostBudget. Rule errors that ratcheting lets pass
// come back as warnings, which kube-apiserver sends as "Warning: 299"
// headers (the validator reports them through k8s.io/apiserver's warning
// recorder, which this package collects).
//
// # Feature gates
//
// Fixed at kube-apiserver 1.37's defaults, never read from a global gate
// by this package: CRDValidationRatcheting on (GA, locked),
// CustomResourceFieldSelectors on (GA, locked), DeclarativeValidationBeta
// on (ObjectMeta's beta declarative rules enforced). Two library
// functions read the process-wide gate themselves (the CEL validator for
// optionalOldSelf, embedded ObjectMeta validation for
// DeclarativeValidationBeta); portcullis never changes that gate, so they
// see the same defaults.
package schema
