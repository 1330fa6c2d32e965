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
// informer.Handler). Upsert compiles a policy at once (matchConstraints,
// matchConditions, variables, validations, messageExpressions,
// auditAnnotations) and a binding's matchResources and paramRef; nothing is
// compiled per request. The next request after a change rebuilds an index
// of the policies that have bindings, keyed by operation, API group and
// resource (matching.Index), and for each policy an index of its bindings,
// so that a request is only checked against the policies and bindings whose
// rules can match it.
//
// Validate (the admission.Validator) then, for each candidate policy in
// name order: matches the policy, resolves its paramKind, and for each
// matching binding in name order collects the params (params.Collect) and
// evaluates the policy once per param (evaluate.go): match conditions,
// validations, messages, audit annotations, each set under
// kube-apiserver's cost budget. Decisions are applied by the binding's
// validationActions: Deny collects the first denial for the response,
// Warn adds a Warning header, Audit adds to the
// validation.policy.admission.k8s.io/validation_failure audit annotation.
// Configuration errors (a missing paramKind or param, an unparsable
// selector, a namespace that cannot be read) deny or are ignored by the
// policy's failurePolicy.
//
// # What is exempt
//
// Reviews (TokenReview, SelfSubjectReview, SubjectAccessReview and the
// other access reviews) are never subject to policies. The policy and
// binding resources themselves are exempt from policies created through
// the API, but not from manifest-based (static) ones, as in
// kube-apiserver: Options.Static selects.
//
// # API validation and status
//
// ValidateExpressions compiles a policy's expressions as kube-apiserver's
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
