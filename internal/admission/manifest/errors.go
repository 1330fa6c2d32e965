package manifest

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors; every load failure wraps one of them inside a *LoadError.
var (
	// ErrDirectory reports an unusable staticManifestsDir value.
	ErrDirectory = errors.New("invalid staticManifestsDir")
	// ErrFeatureGateDisabled reports staticManifestsDir set with the gate off.
	ErrFeatureGateDisabled = errors.New("staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled")
	// ErrUnknownPlugin reports a Kind that is none of the four plugins.
	ErrUnknownPlugin = errors.New("unknown admission plugin")
	// ErrRead reports a directory or file that could not be read.
	ErrRead = errors.New("read failed")
	// ErrSyntax reports a document that is not well-formed YAML or JSON.
	ErrSyntax = errors.New("malformed document")
	// ErrStrictDecoding reports unknown or duplicate fields.
	ErrStrictDecoding = errors.New("strict decoding error")
	// ErrUnsupportedVersion reports an apiVersion other than admissionregistration.k8s.io/v1.
	ErrUnsupportedVersion = errors.New("unsupported apiVersion")
	// ErrUnsupportedKind reports a kind the plugin does not accept.
	ErrUnsupportedKind = errors.New("unsupported kind")
	// ErrInvalidObject reports a failure of the caller's validation.
	ErrInvalidObject = errors.New("invalid object")
	// ErrName reports a missing name or one without the .static.k8s.io suffix.
	ErrName = errors.New("invalid name")
	// ErrDuplicateName reports two objects of one kind with the same name.
	ErrDuplicateName = errors.New("duplicate name")
	// ErrRestricted reports a field that static manifests may not use.
	ErrRestricted = errors.New("not supported for static manifests")
	// ErrURLRequired reports a static webhook without clientConfig.url.
	ErrURLRequired = errors.New("required for static manifests")
	// ErrPolicyNotFound reports a binding whose policy is not in the set.
	ErrPolicyNotFound = errors.New("policy not found in the manifest directory")
)

// LoadError locates a load failure: the file, the document within it
// (1-based, counting non-empty documents), the list item when the document
// is a list, and the object when it was decoded far enough to have one.
type LoadError struct {
	File string
	// Doc is 0 for failures that concern the file as a whole.
	Doc int
	// Item is the path inside a list document, such as "items[2]"; empty
	// when the document is a single object.
	Item string
	Kind string
	Name string
	Err  error
}

func (e *LoadError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "error loading %s", e.File)
	if e.Doc > 0 {
		fmt.Fprintf(&b, ": document %d", e.Doc)
	}
	if e.Item != "" {
		fmt.Fprintf(&b, " %s", e.Item)
	}
	if e.Kind != "" {
		fmt.Fprintf(&b, ": %s %q", e.Kind, e.Name)
	}
	fmt.Fprintf(&b, ": %v", e.Err)
	return b.String()
}

func (e *LoadError) Unwrap() error { return e.Err }
