package policy

import (
	"github.com/google/cel-go/common/types/ref"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
)

// namespaceKind is the kind whose objects have no namespaceObject.
var namespaceKind = schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}

// inputs are the request's CEL values, each converted the first time a
// policy reads it and shared by the policies after.
type inputs struct {
	have                       celenv.Uses
	object, oldObject, request ref.Val
	ns                         *corev1.Namespace
	namespace, fullNamespace   ref.Val
	authz, requestResource     ref.Val
	nsLooked                   bool
}

// lookupNamespace reads the request's namespace, which kube-apiserver does
// for every evaluated binding whether or not its expressions read it: a
// namespace that cannot be read fails the request.
func (d *dispatch) lookupNamespace() error {
	in := &d.in
	if in.nsLooked {
		return nil
	}
	a := d.a
	if a.Namespace != "" && a.Kind != namespaceKind {
		ns, err := d.req.Namespace(a.Namespace)
		if err != nil {
			return err
		}
		in.ns = ns
	}
	in.nsLooked = true
	return nil
}

// input returns the values pol reads, with params.
func (d *dispatch) input(pol *compiledPolicy, params ref.Val) (celenv.Input, ref.Val) {
	in, a, u := &d.in, d.a, pol.uses
	if missing := u &^ in.have; missing != 0 {
		if missing&celenv.UsesObject != 0 {
			in.object = celenv.ObjectVal(a.Object, a.Kind)
		}
		if missing&celenv.UsesOldObject != 0 {
			in.oldObject = celenv.ObjectVal(a.OldObject, a.Kind)
		}
		if missing&celenv.UsesRequest != 0 {
			in.request = celenv.RequestVal(a, a.Resource, a.Kind)
		}
		if missing&celenv.UsesNamespace != 0 {
			in.namespace, in.fullNamespace = celenv.NamespaceVal(in.ns), celenv.FullNamespaceVal(in.ns)
		}
		if missing&(celenv.UsesAuthorizer|celenv.UsesRequestResourceAuthorizer) != 0 && in.authz == nil {
			if az := d.p.opts.Authorizer; az != nil {
				in.authz, in.requestResource = celenv.AuthorizerVals(a, celenv.NewCachingAuthorizer(az))
			}
		}
		in.have |= missing
	}
	out := celenv.Input{Params: params}
	if u&celenv.UsesObject != 0 {
		out.Object = in.object
	}
	if u&celenv.UsesOldObject != 0 {
		out.OldObject = in.oldObject
	}
	if u&celenv.UsesRequest != 0 {
		out.Request = in.request
	}
	if u&celenv.UsesNamespace != 0 {
		out.Namespace = in.namespace
	}
	if u&(celenv.UsesAuthorizer|celenv.UsesRequestResourceAuthorizer) != 0 {
		out.Authorizer, out.RequestResourceAuthorizer = in.authz, in.requestResource
	}
	return out, in.fullNamespace
}
