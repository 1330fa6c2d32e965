package schema

import "errors"

var (
	// ErrVersion reports that Compile was asked for a version the
	// CustomResourceDefinition does not have.
	ErrVersion = errors.New("no such version")

	// ErrNotAccepted reports a CustomResourceDefinition whose names have
	// not been accepted yet (status.acceptedNames.kind is empty), which
	// kube-apiserver does not serve either.
	ErrNotAccepted = errors.New("names not accepted")

	// ErrSchema reports a schema that cannot be served: not structural
	// (where spec.preserveUnknownFields does not excuse it) or not
	// convertible to OpenAPI. CustomResourceDefinition validation rejects
	// such schemas, so it means the caller skipped validation.
	ErrSchema = errors.New("schema cannot be served")

	// ErrRuleCompile reports x-kubernetes-validations rules that do not
	// compile. Compile returns it (as a *RuleCompileError) together with a
	// usable Version; see Compile.
	ErrRuleCompile = errors.New("validation rules do not compile")

	// ErrNotTable reports an object Table cannot render: neither an
	// *unstructured.Unstructured nor an *unstructured.UnstructuredList.
	ErrNotTable = errors.New("cannot be shown as a table")

	// ErrIncludeObject reports an includeObject value other than None,
	// Metadata and Object; the error text is kube-apiserver's, which it
	// answers with 400 Bad Request.
	ErrIncludeObject = errors.New("unrecognized includeObject value")

	// ErrSelectableField reports a selectable field whose value cannot be
	// read from an object (kube-apiserver's GetAttrs errors).
	ErrSelectableField = errors.New("selectable field")

	// ErrFieldLabel reports a field selector on a field that is neither
	// metadata.name, metadata.namespace (namespaced kinds only) nor one of
	// the version's selectableFields. Its text is kube-apiserver's
	// "field label not supported: <label>".
	ErrFieldLabel = errors.New("field label not supported")
)
