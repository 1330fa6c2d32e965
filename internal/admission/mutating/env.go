package mutating

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/util/version"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
	"k8s.io/apiserver/pkg/cel/library"
	"k8s.io/apiserver/pkg/cel/mutation"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
)

// Mutation expressions need what celenv's environments lack: the Object
// and JSONPatch types and jsonpatch.escapeKey. Their environment is built
// here from the same pieces (celenv's base set, request and namespace
// types and variable names), so that mutations see exactly the variables
// that match conditions and variables see, plus the patch types, as in
// kube-apiserver, where only mutation expressions may construct patches.

// introducedAlways marks options every compatibility version has.
var introducedAlways = version.MajorMinor(1, 0)

// variablesTypeName is the object type of the variables variable, the
// name kube-apiserver gives it.
const variablesTypeName = "kubernetes.variables"

// patchTypes declares Object, Object.<field>..., JSONPatch and
// jsonpatch.escapeKey.
var patchTypes = environment.VersionedOptions{
	IntroducedVersion: introducedAlways,
	EnvOptions: []cel.EnvOption{
		common.ResolverEnvOption(&mutation.DynamicTypeResolver{}),
		environment.UnversionedLib(library.JSONPatch),
	},
}

// patchEnvSets holds, with and without params, the base environment with
// the admission variables and the patch types. Built once: extending an
// environment costs milliseconds.
var patchEnvSets [2]struct {
	once sync.Once
	set  *environment.EnvSet
	err  error
}

// emptyVariablesType is the variables type of policies without variables.
var emptyVariablesType = apiservercel.NewObjectType(variablesTypeName, map[string]*apiservercel.DeclField{})

// emptyVariableEnvs are the environments of policies without variables,
// which can share one.
var emptyVariableEnvs [2]struct {
	once sync.Once
	env  *cel.Env
	err  error
}

func paramIndex(hasParams bool) int {
	if hasParams {
		return 1
	}
	return 0
}

func patchEnvSet(hasParams bool) (*environment.EnvSet, error) {
	e := &patchEnvSets[paramIndex(hasParams)]
	e.once.Do(func() {
		e.set, e.err = buildPatchEnvSet(hasParams)
	})
	return e.set, e.err
}

func buildPatchEnvSet(hasParams bool) (*environment.EnvSet, error) {
	request, namespace := celenv.RequestType(), celenv.NamespaceType()
	opts := []cel.EnvOption{
		cel.Variable(celenv.ObjectVar, cel.DynType),
		cel.Variable(celenv.OldObjectVar, cel.DynType),
		cel.Variable(celenv.NamespaceVar, namespace.CelType()),
		cel.Variable(celenv.RequestVar, request.CelType()),
		cel.Variable(celenv.AuthorizerVar, library.AuthorizerType),
		cel.Variable(celenv.RequestResourceAuthorizerVar, library.ResourceCheckType),
	}
	if hasParams {
		opts = append(opts, cel.Variable(celenv.ParamsVar, cel.DynType))
	}
	set, err := celenv.BaseEnvSet().Extend(environment.VersionedOptions{
		IntroducedVersion: introducedAlways,
		EnvOptions:        opts,
		DeclTypes:         []*apiservercel.DeclType{namespace, request},
	}, environment.StrictCostOpt)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", celenv.ErrEnvironment, err)
	}
	if set, err = set.Extend(patchTypes); err != nil {
		return nil, fmt.Errorf("%w: %w", celenv.ErrEnvironment, err)
	}
	return set, nil
}

// mutationEnv returns the environment of a policy's mutations: variables
// has the given type, whose fields are the policy's variables.
func mutationEnv(hasParams bool, vars *apiservercel.DeclType) (*cel.Env, error) {
	if len(vars.Fields) == 0 {
		e := &emptyVariableEnvs[paramIndex(hasParams)]
		e.once.Do(func() {
			e.env, e.err = extendWithVariables(hasParams, emptyVariablesType)
		})
		return e.env, e.err
	}
	return extendWithVariables(hasParams, vars)
}

func extendWithVariables(hasParams bool, vars *apiservercel.DeclType) (*cel.Env, error) {
	set, err := patchEnvSet(hasParams)
	if err != nil {
		return nil, err
	}
	set, err = set.Extend(environment.VersionedOptions{
		IntroducedVersion: introducedAlways,
		EnvOptions:        []cel.EnvOption{cel.Variable(celenv.VariablesVar, vars.CelType())},
		DeclTypes:         []*apiservercel.DeclType{vars},
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", celenv.ErrEnvironment, err)
	}
	// Policies are stored expressions: everything this release knows.
	return set.Env(environment.StoredExpressions)
}
