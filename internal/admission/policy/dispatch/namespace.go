package dispatch

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission/policy/matching"
)

// namespaceKind is the kind whose objects have no namespaceObject.
var namespaceKind = schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}

// Namespace returns the namespace expressions see as namespaceObject:
// the request's, read once per request; none for cluster-scoped objects
// and for namespaces themselves. kube-apiserver reads it before it
// evaluates a policy, whether or not the policy's expressions use it, so
// an error fails the request; each plugin reports it its own way.
func Namespace(req *matching.Request) (*corev1.Namespace, error) {
	a := req.Attrs
	if a.Namespace == "" || a.Kind == namespaceKind {
		return nil, nil
	}
	return req.Namespace(a.Namespace)
}
