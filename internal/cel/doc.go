// Package cel is the one CEL base of portcullis: the Kubernetes function
// libraries at kube-apiserver's compatibility version, the cost and size
// limits, the compile helper and the program options. Every CEL user
// extends it with its own variables and types; none builds a base of its
// own. Import it as celbase beside cel-go's cel.
//
// # Environment
//
// BaseEnvSet is k8s.io/apiserver/pkg/cel/environment's base at
// CompatibilityVersion (kube-apiserver's default: the previous minor
// release), built once per process on first use. It has two
// environments: NewExpressions, with what CompatibilityVersion knows, for
// expressions the API admits for the first time; StoredExpressions, with
// everything this release knows, for expressions already admitted and for
// configuration files, which may have been written for a newer
// kube-apiserver. EnvSet, VersionedOptions, EnvType and the two
// environments keep the environment package's names, so that users import
// only this package. A user declares its variables with Variable (or its
// own VersionedOptions at IntroducedAlways) and builds its environments
// with Extend or StoredEnv, once per process (or once per policy whose
// variables add types): extending costs milliseconds, so it never happens
// per request. A failure to extend is ErrEnvironment, a programming error.
//
// # Compiling
//
// Compile parses, type-checks and plans one expression and reports every
// problem as kube-apiserver words it: all parse and check issues at once,
// each with its line, column and a pointer into the source; a result type
// that its ResultCheck refuses (OneOf gives kube-apiserver's "must
// evaluate to" messages); a planning failure as an internal error. Users
// compile when a configuration or policy is loaded, never per request.
//
// # Limits and program options
//
// The base sets PerCallLimit on every program and tracks cost with the
// Kubernetes cost model (StrictCost). The budgets an evaluation set
// shares (RuntimeCELCostBudget, RuntimeCELCostBudgetMatchConditions), the
// size bounds (MaxRequestSizeBytes, MaxEvaluatedMessageExpressionSizeBytes,
// MaxExpressionCodePoints, MaxAuditAnnotationValueExpressionLength) and
// CheckFrequency keep kube-apiserver's names and values (limits.go).
// InterruptChecks lets a cancelled request stop a long evaluation; as in
// kube-apiserver, admission programs have it and authentication and
// authorization programs do not.
//
// # Users
//
//   - internal/admission/policy/celenv: object, oldObject, request,
//     namespaceObject, params, authorizer and the policy's variables, for
//     ValidatingAdmissionPolicy, MutatingAdmissionPolicy (plus the patch
//     types) and the match conditions of admission webhooks
//     (internal/admission/webhook compiles them through celenv);
//     StrictCost and InterruptChecks; both environments.
//   - internal/admission/policy: the type checker of the policy status,
//     with typed object and params; StoredEnv. Its API validation
//     compiles through celenv in both environments.
//   - internal/validation: MaxAuditAnnotationValueExpressionLength.
//   - internal/authn/jwt: claims, for claim validation rules and claim
//     mappings, and user, for user validation rules; StoredEnv.
//   - internal/authz/webhook: request, the SubjectAccessReview spec, for
//     the match conditions of authorization webhooks; StoredEnv.
//   - CRD validation rules (x-kubernetes-validations), when they come:
//     k8s.io/apiextensions-apiserver's schema/cel compiles them from a
//     structural schema given a base environment set and a per-call cost
//     limit; give it BaseEnvSet() and PerCallLimit, and
//     RuntimeCELCostBudget per object, so that CRD rules see the same
//     libraries and limits as every other expression.
package cel
