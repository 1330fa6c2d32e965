// Package rbac is Kubernetes' role-based access control: an in-memory
// authorizer over Roles, ClusterRoles, RoleBindings and ClusterRoleBindings,
// the rule resolver behind SelfSubjectRulesReview, ClusterRole aggregation,
// the default (bootstrap) policy with its reconciliation, and the escalation
// check that keeps a user from granting what they do not hold.
//
// # Decisions
//
// RBAC only ever allows or has no opinion; it never denies. A request is
// allowed when some binding that names the requester (as a User, as one of
// their Groups, or as a ServiceAccount, which is the user
// "system:serviceaccount:<namespace>:<name>") refers to a role with a rule
// that matches the request. ClusterRoleBindings apply everywhere;
// RoleBindings only to requests in their own namespace, whether they refer
// to a Role of that namespace or to a ClusterRole. A binding whose role does
// not exist grants nothing; its error appears in the no-opinion reason, as
// kube-apiserver reports it.
//
// Members of system:masters are not special here: kube-apiserver puts a
// superuser authorizer in front of RBAC, and so should the server that uses
// this package. (The escalation check does honour system:masters, as the
// reference does.)
//
// # Speed
//
// Bindings are indexed by subject (user name, group name, and namespace for
// RoleBindings), so a decision looks at the bindings that name the
// requester and at nothing else: its cost does not grow with bindings that
// name other users. Rules are compiled when a role is stored, and the
// reason string of every (binding, subject) pair is built when the binding
// is stored, so an allowed decision allocates nothing. Readers share a
// read lock; writers compile outside the lock and hold it only to swap
// entries, so updates never hold decisions up for long.
//
// # Pieces
//
//   - Authorizer: New, Upsert, Delete, Replace; Authorize and RulesFor
//     (authorizer.Authorizer and authorizer.RuleResolver); PolicyRulesFor and
//     RoleRefRules for the escalation check.
//   - AggregatedRules: the rules an aggregated ClusterRole should hold, for
//     the controller that keeps them up to date.
//   - Bootstrap and Reconcile: the default roles and bindings kube-apiserver
//     creates at start-up, and how an existing object is brought up to date
//     with them (missing rules and subjects added, extra ones kept, objects
//     annotated rbac.authorization.kubernetes.io/autoupdate=false left alone).
//   - NewEscalationCheck: the admission validator that forbids creating or
//     updating a role or binding that grants more than the requester holds,
//     unless they may escalate the role or bind the referenced role.
package rbac
