// Package dispatch is the request side that the ValidatingAdmissionPolicy
// and MutatingAdmissionPolicy plugins share: which requests are exempt,
// the wait for the policies to load, the lookup of the policies whose
// rules may match, and for each of them, in name order, the match of the
// policy, the resolution of its paramKind, the match of its bindings and
// the collection of their params, with kube-apiserver's configuration
// errors. The namespace expressions see, match conditions (evaluated
// under their cost budget and the policy's failure policy) and the 403 of
// a refused request are shared too.
//
// # How the plugins use it
//
// Candidates starts a request: it returns the policies to walk, or the
// error that refuses the request. Walk then matches one policy and hands
// its matching bindings with their params, and the configuration errors
// it met, to the plugin's Visitor: the validating plugin evaluates and
// enforces there and then, the mutating plugin collects invocations to
// apply in order. What each plugin evaluates and how it answers stays in
// the plugin.
//
// # What is exempt
//
// Reviews (TokenReview, SelfSubjectReview, SubjectAccessReview and the
// other access reviews) are never subject to policies. The policy and
// binding resources themselves are exempt from policies created through
// the API, but not from manifest-based (static) ones, as in
// kube-apiserver: Config.Static selects.
package dispatch
