// Package mutating is the MutatingAdmissionPolicy admission plugin: it
// applies the CEL mutations of admissionregistration.k8s.io/v1
// MutatingAdmissionPolicies through their bindings, with kube-apiserver's
// matching, parameters, variables, match conditions, failure policies,
// reinvocation, error texts and metrics.
//
// # How the pieces fit
//
// The server feeds policies and bindings to Upsert and Delete
// (policyset.Handler). Upsert compiles a policy at once: what every
// admission policy has (policyset.CompilePolicy: matchConstraints,
// paramKind, variables, match conditions), and its mutations with the
// same compiler, declared with celenv.Decls.Patch: only mutations may use
// the Object and JSONPatch types and jsonpatch.escapeKey. The next request
// after a change rebuilds an index of the policies that have bindings,
// keyed by operation, API group and resource (matching.Index), so that a
// request is only checked against the policies whose rules can match it.
//
// Admit (the admission.Mutator) walks the candidate policies with package
// dispatch, which the ValidatingAdmissionPolicy plugin shares, and collects
// the invocations that apply to the request (policy, binding and param, in
// name order). It runs them in order, each on the object the ones before it
// left: match conditions first (dispatch.ConditionsHold), then each
// mutation with its own runtime cost budget. A mutation sees the object in
// its unstructured form and yields either an apply configuration, merged
// into the object the way server-side apply merges (structured-merge-diff
// with the schemas of k8s.io/client-go/applyconfigurations: fields are set,
// lists and maps merged by key, nothing removed, atomic lists, maps and
// structs refused), or a list of JSON patch operations
// (gopkg.in/evanphx/json-patch.v4; a failed test operation leaves the
// object as it was). The result is turned back into the typed object and
// defaulted before the next mutation. a.Object is set to the final object;
// the object Admit was given is never modified.
//
// # Failures
//
// A configuration error (a missing param, a selector that does not parse),
// an error of a match condition or of a mutation fails the request unless
// the policy's failurePolicy is Ignore, in which case the mutation is
// skipped and the others still apply. The response is kube-apiserver's:
// 403, the first failure's message ("policy '<policy>' with binding
// '<binding>' denied request: <error>") and every failure as a cause. An
// unreadable namespace, a kind without a known schema (503) and a JSON
// patch that yields unknown fields (500) fail the request whatever the
// failure policy, as there.
//
// # Reinvocation
//
// admission.Reinvocation is the request's state across the chain's two
// mutating rounds; admission.Chain creates one per request
// (admission.AdmitWithReinvocation). Any applied mutation asks for the
// second round.
// In it, only the invocations of IfNeeded policies that ran before the
// object last changed are run again; a change by a later plugin counts
// too. Without a Reinvocation in the context the plugin runs once.
//
// # What is exempt
//
// Deletes (there is no object to mutate), and what dispatch.Exempt
// exempts: the review resources and, for policies created through the API
// (not Options.Static), the admission policy resources themselves, as in
// kube-apiserver.
//
// # Differences from kube-apiserver
//
// Policies and bindings are applied in name order (kube-apiserver's order
// is that of its informers), so results do not depend on load order.
// Integers in JSON patch values stay integers (kube-apiserver passes them
// through doubles). A JSON patch may not grow the object past the largest
// request (3 MiB), and one that changes the object's kind fails.
// Objects of kinds outside the scheme are not defaulted after mutation.
package mutating
