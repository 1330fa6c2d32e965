package authzconfig

import "errors"

// Errors of this package, wrapped with detail; match them with errors.Is.
var (
	// ErrDecode: the configuration file could not be read or decoded
	// (syntax, unknown or duplicate fields, wrong apiVersion or kind).
	ErrDecode = errors.New("failed to load AuthorizationConfiguration from file")
	// ErrInvalid: the configuration decoded but breaks a rule; the
	// *InvalidError lists every problem with its field path.
	ErrInvalid = errors.New("invalid AuthorizationConfiguration")
	// ErrFlags: the legacy --authorization-* flags are inconsistent.
	ErrFlags = errors.New("invalid authorization flags")
	// ErrFlagsExclusive: --authorization-config was given together with
	// --authorization-mode or an --authorization-webhook-* flag. The text
	// is kube-apiserver's.
	ErrFlagsExclusive = errors.New("--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined")
	// ErrNotSupported: a kube-apiserver feature portcullis does not have
	// (the ABAC mode, InClusterConfig webhooks).
	ErrNotSupported = errors.New("not supported by portcullis")
	// ErrMissingAuthorizer: the configuration names RBAC or Node but the
	// server supplied no such authorizer in Deps.
	ErrMissingAuthorizer = errors.New("authorizer not provided")
	// ErrReload: a changed configuration file was not applied; the
	// previous configuration stays in force.
	ErrReload = errors.New("authorization config reload failed")
)
