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
// under another version from the same storage: the served versions of a
// CustomResourceDefinition (built-in resources are served in one group
// and version each here). The request's Attributes.Equivalents lists
// them in the CRD's order. Under Equivalent a request that no rule
// matches as it is matches through the first rule, in order, that names
// one of its equivalents, tried in that order; MatchAs then reports that
// resource and its kind, and the plugins judge the request converted to
// it (Attributes.As). As in kube-apiserver, resource names are only
// checked on the request's own resource, and exclusions follow the same
// policy. An unset matchPolicy is Exact here; API defaulting sets
// Equivalent.
package matching
