package dispatch

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/admission/policy/params"
	"github.com/portcullis/portcullis/internal/admission/policy/policyset"
)

// Visitor is what a plugin does with what Walk finds.
type Visitor[P, B any] interface {
	// ConfigError is a configuration error of pol (binding nil) or of
	// one of its bindings; the plugin applies the failure policy.
	ConfigError(pol P, binding *policyset.Binding, err error)
	// Bind is a binding of pol that matches the request, with the
	// resource and kind pol matched it as (another version of the
	// resource under matchPolicy Equivalent) and its params as
	// params.Collect returns them: a single nil without params, none
	// when none was found and the binding allows that. An error ends the
	// request: it is the response.
	Bind(pol P, b B, m matching.Match, params []runtime.Object) error
}

// Walk matches the policy of e against the request, resolves the scope of
// its paramKind, and hands each of its bindings that matches, in name
// order, with its params to v. It returns the first error v.Bind returns.
func Walk[P policyset.CompiledPolicy, B policyset.CompiledBinding](ctx context.Context, req *matching.Request, src params.Source, e *policyset.Entry[P, B], v Visitor[P, B]) error {
	pol := e.Policy.Common()
	m, ok, err := pol.Match.MatchAs(req)
	if err != nil {
		v.ConfigError(e.Policy, nil, err)
		return nil
	}
	if !ok {
		return nil
	}
	namespaced := false
	if pol.ParamKind != nil {
		if src == nil {
			err = params.UnresolvedKindError(*pol.ParamKind)
		} else if namespaced, err = src.Namespaced(*pol.ParamKind); err != nil {
			err = params.UnresolvedKindError(*pol.ParamKind)
		}
		if err != nil {
			v.ConfigError(e.Policy, nil, err)
			return nil
		}
	}
	var buf [4]B
	for _, b := range e.Bindings.Lookup(buf[:0], req) {
		bc := b.Common()
		ok, err := bc.Match.Matches(req)
		if err != nil {
			v.ConfigError(e.Policy, bc, err)
			continue
		}
		if !ok {
			continue
		}
		ps, err := params.Collect(ctx, src, pol.ParamKind, namespaced, bc.ParamRef, req.Attrs.Namespace)
		if err != nil {
			v.ConfigError(e.Policy, bc, err)
			continue
		}
		if err := v.Bind(e.Policy, b, m, ps); err != nil {
			return err
		}
	}
	return nil
}
