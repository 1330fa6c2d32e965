package limitranger

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

// listError is a failure to read the namespace's LimitRanges. Its text
// is kube-apiserver's, which does not show the cause; Unwrap keeps it
// for logs and errors.Is.
type listError struct {
	op       admission.Operation
	resource schema.GroupVersionResource
	err      error
}

func (e *listError) Error() string {
	return fmt.Sprintf("unable to %s %v at this time because there was an error enforcing limit ranges", e.op, e.resource)
}

func (e *listError) Unwrap() error { return e.err }
