package rbac

import "errors"

// ErrUnsupportedObject is returned for objects that are not RBAC v1 Roles,
// ClusterRoles, RoleBindings or ClusterRoleBindings.
var ErrUnsupportedObject = errors.New("not an RBAC v1 role or binding")

// ErrKindMismatch is returned by Reconcile when the existing and desired
// objects are of different kinds.
var ErrKindMismatch = errors.New("existing and desired objects differ in kind")

// ErrNoUser is returned (inside a Forbidden error) by the escalation check
// for a request that carries no user.
var ErrNoUser = errors.New("no user on context")
