// Package bootstraprbac brings kube-apiserver's bootstrap RBAC policy
// (the system:* roles and bindings of authz/rbac.Bootstrap) up to date at
// every start, as kube-apiserver's rbac/bootstrap-roles post-start hook
// does: missing objects are created, stale ones get the missing rules and
// subjects, and those annotated rbac.authorization.kubernetes.io/autoupdate
// "false" are left alone.
//
// Run reconciles once and returns; the server waits for it before it
// reports ready. The objects are independent, so they are written side by
// side: their durable writes then share commits instead of queueing one
// fsync each (a first start writes about a hundred).
package bootstraprbac
