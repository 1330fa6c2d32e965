package manifest

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

var dirField = field.NewPath("staticManifestsDir")

// ValidateDir checks a staticManifestsDir value as the reference does: it
// must be an absolute path to an existing directory. Glob patterns are not
// expanded, so a pattern fails the existence check like any missing path.
// The returned error wraps ErrDirectory and reads like a field error.
func ValidateDir(path string) error {
	if !filepath.IsAbs(path) {
		return dirError(ErrDirectory, field.Invalid(dirField, path, "must be an absolute file path"))
	}
	info, err := os.Stat(path)
	if err != nil {
		return dirError(ErrDirectory, field.Invalid(dirField, path, fmt.Sprintf("unable to read: %v", err)))
	}
	if !info.IsDir() {
		return dirError(ErrDirectory, field.Invalid(dirField, path, "must be a directory"))
	}
	return nil
}

// ValidateConfigField is what a plugin configuration's Validate calls for
// its staticManifestsDir: empty is always fine, a value with the
// ManifestBasedAdmissionControlConfig gate off is forbidden, anything else
// goes through ValidateDir.
func ValidateConfigField(path string, gateEnabled bool) error {
	if path == "" {
		return nil
	}
	if !gateEnabled {
		return dirError(ErrFeatureGateDisabled, field.Forbidden(dirField, ErrFeatureGateDisabled.Error()))
	}
	return ValidateDir(path)
}

// fieldError reads exactly like the reference's field error while still
// matching its sentinel with errors.Is.
type fieldError struct {
	sentinel error
	fe       *field.Error
}

func dirError(sentinel error, fe *field.Error) error { return &fieldError{sentinel, fe} }

func (e *fieldError) Error() string   { return e.fe.Error() }
func (e *fieldError) Unwrap() []error { return []error{e.sentinel, e.fe} }
