package matching

import "errors"

// ErrNoMatchConstraints is kube-apiserver's error for a policy without
// spec.matchConstraints.
var ErrNoMatchConstraints = errors.New("policy contained no match constraints, a required field")

// ErrNilNamespaceSelector and ErrNilObjectSelector report a MatchResources
// whose selectors were not defaulted; the texts are kube-apiserver's.
var (
	ErrNilNamespaceSelector = errors.New("a nil namespace selector was passed, please ensure selectors are initialized properly")
	ErrNilObjectSelector    = errors.New("a nil object selector was passed, please ensure selectors are initialized properly")
)
