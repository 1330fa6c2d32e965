package policy

import (
	"github.com/google/cel-go/common/types/ref"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/dispatch"
)

// lookupNamespace reads the request's namespace before the first binding
// is evaluated: a namespace that cannot be read fails the request.
func (r *review) lookupNamespace() error {
	if r.nsLooked {
		return nil
	}
	ns, err := dispatch.Namespace(r.req)
	if err != nil {
		return err
	}
	r.values.SetNamespace(ns)
	r.ns, r.nsLooked = ns, true
	return nil
}

// input returns the values of vals pol reads, without params, and namespaceObject
// as audit annotations see it.
func (r *review) input(vals *celenv.Values, pol *compiledPolicy) (celenv.Input, ref.Val) {
	in := vals.Input(pol.uses)
	var fullNamespace ref.Val
	if pol.uses&celenv.UsesNamespace != 0 {
		fullNamespace = vals.FullNamespace()
	}
	return in, fullNamespace
}
