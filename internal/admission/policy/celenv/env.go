package celenv

import (
	"sync"

	"github.com/google/cel-go/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/library"

	celbase "github.com/portcullis/portcullis/internal/cel"
)

// Decls selects the optional variables an expression may use.
type Decls struct {
	// Params declares params (the policy has a paramKind).
	Params bool
	// Authorizer declares authorizer and authorizer.requestResource.
	Authorizer bool
	// Patch declares what only mutation expressions may use: the Object
	// and JSONPatch types and jsonpatch.escapeKey.
	Patch bool
}

// declsCombinations is the number of distinct Decls.
const declsCombinations = 8

// index numbers the combinations.
func (d Decls) index() int {
	i := 0
	if d.Params {
		i |= 1
	}
	if d.Authorizer {
		i |= 2
	}
	if d.Patch {
		i |= 4
	}
	return i
}

// admissionEnvSets holds the base environment with the admission
// variables, one per Decls. Built once: extending an environment costs
// milliseconds.
var admissionEnvSets [declsCombinations]struct {
	once sync.Once
	set  *celbase.EnvSet
	err  error
}

func admissionEnvSet(d Decls) (*celbase.EnvSet, error) {
	e := &admissionEnvSets[d.index()]
	e.once.Do(func() {
		if !d.Patch {
			e.set, e.err = extendWithAdmissionVars(celbase.BaseEnvSet(), d)
			return
		}
		// The patch types come on top of exactly what the other
		// expressions of the policy see.
		vars := d
		vars.Patch = false
		var set *celbase.EnvSet
		if set, e.err = admissionEnvSet(vars); e.err == nil {
			e.set, e.err = extendWithPatchTypes(set)
		}
	})
	return e.set, e.err
}

func extendWithAdmissionVars(base *celbase.EnvSet, d Decls) (*celbase.EnvSet, error) {
	request, namespace := RequestType(), NamespaceType()
	opts := []cel.EnvOption{
		cel.Variable(ObjectVar, cel.DynType),
		cel.Variable(OldObjectVar, cel.DynType),
		cel.Variable(NamespaceVar, namespace.CelType()),
		cel.Variable(RequestVar, request.CelType()),
	}
	if d.Params {
		opts = append(opts, cel.Variable(ParamsVar, cel.DynType))
	}
	if d.Authorizer {
		opts = append(opts,
			cel.Variable(AuthorizerVar, library.AuthorizerType),
			cel.Variable(RequestResourceAuthorizerVar, library.ResourceCheckType))
	}
	return celbase.Extend(base, celbase.VersionedOptions{
		IntroducedVersion: celbase.IntroducedAlways,
		EnvOptions:        opts,
		DeclTypes:         []*apiservercel.DeclType{namespace, request},
	}, celbase.StrictCost())
}

// extendWithVariables declares variables with the given object type, whose
// fields the Compiler adds as it compiles the policy's variables.
func extendWithVariables(set *celbase.EnvSet, vars *apiservercel.DeclType) (*celbase.EnvSet, error) {
	return celbase.Extend(set, celbase.Variable(VariablesVar, vars))
}

// emptyVariables is the variables type of policies without variables; it
// never gains a field.
var emptyVariables = apiservercel.NewObjectType(variablesTypeName, map[string]*apiservercel.DeclField{})

// emptyVariableEnvSets serve policies without variables, which can share
// one variables type that never gains a field.
var emptyVariableEnvSets [declsCombinations]struct {
	once sync.Once
	set  *celbase.EnvSet
	err  error
}

func sharedEnvSet(d Decls) (*celbase.EnvSet, error) {
	e := &emptyVariableEnvSets[d.index()]
	e.once.Do(func() {
		var set *celbase.EnvSet
		set, e.err = admissionEnvSet(d)
		if e.err == nil {
			e.set, e.err = extendWithVariables(set, emptyVariables)
		}
	})
	return e.set, e.err
}
