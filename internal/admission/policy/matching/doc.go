// Package matching decides which admission requests an admission policy or
// binding applies to: the resource rules (operations, API groups and
// versions, resources with their wildcards and subresources, resource
// names, scope), the exclusion rules, the namespace selector and the object
// selector of a MatchResources, with kube-apiserver's order of checks and
// its error texts.
//
// # Pieces
//
// Compile turns a MatchResources into a Criteria once, when the policy or
// binding is loaded: selectors are parsed and rules split into their parts.
// A Request wraps one admission request and looks up its namespace at most
// once, however many criteria ask. Index groups values (policies, bindings,
// webhooks) by the operations, groups and resources of their rules so that
// a request is only matched against the few whose rules can match it; it is
// how admission cost grows with the policies that match a request rather
// than with those configured.
//
// # matchPolicy
//
// Equivalent differs from Exact only for a resource that is also served
// under another group or version (kube-apiserver's equivalent resources,
// such as apps/v1 and extensions/v1beta1 deployments). Portcullis serves
// every resource in exactly one group and version and no two served
// resources share storage, so both policies match the same requests here
// and the matched resource and kind are always the request's own.
package matching
