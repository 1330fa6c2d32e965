package matching

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

// NamespaceGetter returns a namespace; a missing one is an apierrors
// NotFound error.
type NamespaceGetter func(ctx context.Context, name string) (*corev1.Namespace, error)

// Request is one admission request as the matchers see it. It looks up
// each namespace at most once. Not safe for concurrent use: one request is
// matched by one goroutine.
type Request struct {
	Attrs *admission.Attributes

	ctx        context.Context
	namespaces NamespaceGetter
	cache      map[string]nsResult
}

type nsResult struct {
	ns  *corev1.Namespace
	err error
}

// NewRequest wraps a; namespaces may be nil when no namespace is known.
func NewRequest(ctx context.Context, a *admission.Attributes, namespaces NamespaceGetter) *Request {
	return &Request{Attrs: a, ctx: ctx, namespaces: namespaces}
}

// Namespace returns the named namespace, looked up once per request.
func (r *Request) Namespace(name string) (*corev1.Namespace, error) {
	if res, ok := r.cache[name]; ok {
		return res.ns, res.err
	}
	var res nsResult
	if r.namespaces == nil {
		res.err = apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	} else {
		res.ns, res.err = r.namespaces(r.ctx, name)
	}
	if r.cache == nil {
		r.cache = map[string]nsResult{}
	}
	r.cache[name] = res
	return res.ns, res.err
}

// isNamespaceRequest follows kube-apiserver, which recognises requests on
// namespaces by the resource name alone.
func (r *Request) isNamespaceRequest() bool { return r.Attrs.Resource.Resource == "namespaces" }

// namespaceName is the namespace whose labels the namespace selector
// tests. kube-apiserver's request attributes carry a namespace's own name
// as the namespace of requests on it; portcullis' may not, so the name
// stands in.
func (r *Request) namespaceName() string {
	a := r.Attrs
	if a.Namespace == "" && r.isNamespaceRequest() {
		return a.Name
	}
	return a.Namespace
}

// namespaceLabels returns the labels the namespace selector is tested
// against: a namespace being created or updated is judged by its new
// labels, everything else by the stored namespace.
func (r *Request) namespaceLabels() (map[string]string, error) {
	a := r.Attrs
	if r.isNamespaceRequest() && a.Subresource == "" && (a.Operation == admission.Create || a.Operation == admission.Update) {
		if IsNil(a.Object) {
			return nil, nil
		}
		m, err := meta.Accessor(a.Object)
		if err != nil {
			return nil, err
		}
		return m.GetLabels(), nil
	}
	ns, err := r.Namespace(r.namespaceName())
	if err != nil {
		return nil, err
	}
	return ns.Labels, nil
}
