package anonymous

import "k8s.io/apimachinery/pkg/util/validation/field"

// ErrFlagConflict is kube-apiserver's error for --anonymous-auth given
// together with the configuration file's anonymous field.
var ErrFlagConflict = field.Forbidden(field.NewPath("anonymous"),
	"--anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file")
