package celenv

// Uses is a set of the admission variables expressions read, known at
// compile time, so that a request only converts what its policies read.
type Uses uint16

// The admission variables.
const (
	UsesObject Uses = 1 << iota
	UsesOldObject
	UsesRequest
	UsesNamespace
	UsesParams
	UsesAuthorizer
	UsesRequestResourceAuthorizer
	UsesVariables
)

var usesByName = map[string]Uses{
	ObjectVar:                    UsesObject,
	OldObjectVar:                 UsesOldObject,
	RequestVar:                   UsesRequest,
	NamespaceVar:                 UsesNamespace,
	ParamsVar:                    UsesParams,
	AuthorizerVar:                UsesAuthorizer,
	RequestResourceAuthorizerVar: UsesRequestResourceAuthorizer,
	VariablesVar:                 UsesVariables,
}

// Has reports whether u includes every variable of v.
func (u Uses) Has(v Uses) bool { return u&v == v }

// uses lists the variables the checked expression refers to.
func (e *Expression) uses() Uses {
	if e.ast == nil {
		return 0
	}
	var u Uses
	for _, r := range e.ast.NativeRep().ReferenceMap() {
		if r != nil && len(r.OverloadIDs) == 0 {
			u |= usesByName[r.Name]
		}
	}
	return u
}

// Uses returns the variables read by any expression compiled so far,
// the policy variables included.
func (c *Compiler) Uses() Uses { return c.used }
