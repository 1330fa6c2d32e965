// Package policy is the ValidatingAdmissionPolicy admission plugin: it
// evaluates the CEL validations of admissionregistration.k8s.io/v1
// ValidatingAdmissionPolicies through their bindings, with
// kube-apiserver's matching, parameters, failure policies, validation
// actions, messages, status codes, audit annotations, warnings and
// metrics.
//
// # How the pieces fit
//
// The server feeds policies and bindings to Upsert and Delete (an
// informer.Handler, policyset.Handler). Upsert compiles a policy at once:
// what every admission policy has (policyset.CompilePolicy:
// matchConstraints, paramKind, variables, matchConditions) and what only a
// validating one has (validations, messageExpressions, auditAnnotations),
// and a binding's matchResources and paramRef; nothing is compiled per
// request. The next request after a change rebuilds an index of the
// policies that have bindings, keyed by operation, API group and resource
// (matching.Index), and for each policy an index of its bindings, so that
// a request is only checked against the policies and bindings whose rules
// can match it.
//
// Validate (the admission.Validator) walks the candidate policies with
// package dispatch, which the MutatingAdmissionPolicy plugin shares: for
// each policy in name order it matches the policy, resolves its
// paramKind, and for each matching binding in name order collects the
// params. The plugin then evaluates the policy once per param
// (evaluate.go): match conditions, validations, messages, audit
// annotations, each set under kube-apiserver's cost budget, on the
// request's values as celenv.Values converts them once per request.
// Decisions are applied by the binding's validationActions: Deny collects
// the first denial for the response, Warn adds a Warning header, Audit
// adds to the validation.policy.admission.k8s.io/validation_failure audit
// annotation. Configuration errors (a missing paramKind or param, an
// unparsable selector, a namespace that cannot be read) deny or are
// ignored by the policy's failurePolicy. The check metrics are
// checkmetrics'.
//
// # What is exempt
//
// Reviews and, for policies created through the API, the policy and
// binding resources themselves: see dispatch.Exempt.
//
// # API validation and status
//
// internal/validation compiles a policy's expressions as kube-apiserver's
// API validation does, for the registry to reject policies that do not
// compile. TypeChecker type-checks a policy's validations and messages
// against the OpenAPI schemas of the kinds it matches (property names
// escaped as the API reference describes), and StatusController writes the
// warnings to status.typeChecking with status.observedGeneration.
//
// # Differences from kube-apiserver
//
// kube-apiserver evaluates policies in no particular order; here policies
// and bindings are evaluated by name, so the first denial (whose message is
// returned) and the order of warnings are stable. A binding whose policy
// does not exist is ignored, as in kube-apiserver.
package policy
