package celenv

import (
	"github.com/google/cel-go/common/types/ref"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/admission"
)

// authorizerUses are the variables the authorizer values serve.
const authorizerUses = UsesAuthorizer | UsesRequestResourceAuthorizer

// Values are the admission variables of one request, each converted the
// first time an expression reads it and then shared by every policy of
// the request; the authorizer remembers its decisions for the request.
// Not safe for concurrent use: one request is admitted by one goroutine.
type Values struct {
	attrs      *admission.Attributes
	authorizer authorizer.UnconditionalAuthorizer
	ns         *corev1.Namespace

	// have marks the values below that were converted.
	have                       Uses
	object, oldObject, request ref.Val
	namespace, fullNamespace   ref.Val
	authz, requestResource     ref.Val
}

// NewValues returns the values of a; az nil leaves the authorizer
// variables unbound, so that expressions using them fail.
func NewValues(a *admission.Attributes, az authorizer.UnconditionalAuthorizer) Values {
	return Values{attrs: a, authorizer: az}
}

// SetNamespace sets the namespace of the request (nil: none), which the
// caller looks up by its own rules, before namespaceObject is read.
func (v *Values) SetNamespace(ns *corev1.Namespace) { v.ns = ns }

// Input returns the values of the variables in u, typed objects as given
// and namespaceObject with the metadata kube-apiserver exposes; the
// others, params among them, are left nil.
func (v *Values) Input(u Uses) Input {
	if missing := u &^ v.have; missing != 0 {
		v.convert(missing)
	}
	var in Input
	if u&UsesObject != 0 {
		in.Object = v.object
	}
	if u&UsesOldObject != 0 {
		in.OldObject = v.oldObject
	}
	if u&UsesRequest != 0 {
		in.Request = v.request
	}
	if u&UsesNamespace != 0 {
		in.Namespace = v.namespace
	}
	if u&authorizerUses != 0 {
		in.Authorizer, in.RequestResourceAuthorizer = v.authz, v.requestResource
	}
	return in
}

func (v *Values) convert(missing Uses) {
	a := v.attrs
	if missing&UsesObject != 0 {
		v.object = ObjectVal(a.Object, a.Kind)
	}
	if missing&UsesOldObject != 0 {
		v.oldObject = ObjectVal(a.OldObject, a.Kind)
	}
	if missing&UsesRequest != 0 {
		v.request = RequestVal(a, a.Resource, a.Kind)
	}
	if missing&UsesNamespace != 0 {
		v.namespace = NamespaceVal(v.ns)
	}
	if missing&authorizerUses != 0 && v.authz == nil && v.authorizer != nil {
		v.authz, v.requestResource = AuthorizerVals(a, NewCachingAuthorizer(v.authorizer))
	}
	v.have |= missing
}

// FullNamespace returns the namespace with all its metadata, as
// kube-apiserver binds namespaceObject for audit annotations and
// mutations.
func (v *Values) FullNamespace() ref.Val {
	if v.fullNamespace == nil {
		v.fullNamespace = FullNamespaceVal(v.ns)
	}
	return v.fullNamespace
}
