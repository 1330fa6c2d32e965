package cel

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"k8s.io/apimachinery/pkg/util/version"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
)

// The vocabulary of k8s.io/apiserver/pkg/cel/environment under its own
// names, so that users import only this package.
type (
	// EnvSet is a pair of environments, NewExpressions and
	// StoredExpressions, extended together.
	EnvSet = environment.EnvSet
	// VersionedOptions are environment options introduced at a version
	// (for a user's declarations, IntroducedAlways).
	VersionedOptions = environment.VersionedOptions
	// EnvType selects one environment of an EnvSet (kube-apiserver's
	// environment.Type).
	EnvType = environment.Type
)

// The environments of an EnvSet, as kube-apiserver names them.
const (
	// NewExpressions is for expressions the API admits for the first
	// time: only what CompatibilityVersion knows.
	NewExpressions = environment.NewExpressions
	// StoredExpressions is for expressions already admitted and for
	// configuration files: everything this release knows.
	StoredExpressions = environment.StoredExpressions
)

// CompatibilityVersion is the version whose libraries new expressions may
// use: kube-apiserver's default, the previous minor release, so that what
// this release admits a rolled-back one still compiles.
func CompatibilityVersion() *version.Version { return compatibilityVersion() }

var compatibilityVersion = sync.OnceValue(environment.DefaultCompatibilityVersion)

// BaseEnvSet is the Kubernetes CEL base environment at
// CompatibilityVersion: the function libraries, language options and the
// per-call cost limit of k8s.io/apiserver/pkg/cel/environment. Its
// NewExpressions environment holds what CompatibilityVersion knows, its
// StoredExpressions environment everything this release knows. Built on
// first use, once per process; every user extends it.
func BaseEnvSet() *EnvSet { return baseEnvSet() }

var baseEnvSet = sync.OnceValue(func() *EnvSet {
	// Must: the options are the library's own, so only a bug in it fails.
	return environment.MustBaseEnvSet(CompatibilityVersion())
})

// IntroducedAlways marks options that every compatibility version has:
// the variables and types a user declares.
var IntroducedAlways = version.MajorMinor(1, 0)

// Variable declares one variable of a Kubernetes type for every
// compatibility version; the type (and the object types it contains)
// becomes known to the type checker.
func Variable(name string, t *apiservercel.DeclType) VersionedOptions {
	return VersionedOptions{
		IntroducedVersion: IntroducedAlways,
		EnvOptions:        []cel.EnvOption{cel.Variable(name, t.CelType())},
		DeclTypes:         []*apiservercel.DeclType{t},
	}
}

// StrictCost charges the Kubernetes library functions by their own cost
// model (library.CostEstimator) at run time. The base already applies it;
// admission applies it again after its variables, as kube-apiserver does.
func StrictCost() VersionedOptions { return environment.StrictCostOpt }

// Extend extends set with opts, wrapping a failure in ErrEnvironment.
// Extending costs milliseconds: extend once per process, or once per
// policy whose variables add types, never per request.
func Extend(set *EnvSet, opts ...VersionedOptions) (*EnvSet, error) {
	out, err := set.Extend(opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEnvironment, err)
	}
	return out, nil
}

// StoredEnv is the base extended with opts, in the StoredExpressions
// environment: for expressions read from a configuration file, which may
// have been written for a newer kube-apiserver and so may use every
// library this release knows (as kube-apiserver compiles authentication
// and authorization configurations).
func StoredEnv(opts ...VersionedOptions) (*cel.Env, error) {
	set, err := Extend(BaseEnvSet(), opts...)
	if err != nil {
		return nil, err
	}
	env, err := set.Env(StoredExpressions)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrEnvironment, err)
	}
	return env, nil
}
