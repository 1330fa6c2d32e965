package params

import "errors"

// The configuration errors of a paramRef, in kube-apiserver's words.
var (
	ErrNamespacedParamForClusterRequest = errors.New("cannot use namespaced paramRef in policy binding that matches cluster-scoped resources")
	ErrNamespaceForClusterParam         = errors.New("paramRef.namespace must not be provided for a cluster-scoped `paramKind`")
	ErrNameAndSelector                  = errors.New("paramRef.name and paramRef.selector are mutually exclusive")
	ErrNoNameOrSelector                 = errors.New("one of name or selector must be provided")
	ErrNotFoundDeny                     = errors.New("no params found for policy binding with `Deny` parameterNotFoundAction")
)

// ErrUnknownKind is returned by a Source for a kind it does not serve.
var ErrUnknownKind = errors.New("unknown param kind")
