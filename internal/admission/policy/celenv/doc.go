// Package celenv is the CEL side of the admission policies: the admission
// variables and the policy variables on top of internal/cel's base (the
// function libraries, versions and cost limits of kube-apiserver 1.37),
// the conversion of requests and objects into CEL values, and evaluation
// under kube-apiserver's cost budgets with its error texts.
// ValidatingAdmissionPolicy, MutatingAdmissionPolicy and the match
// conditions of admission webhooks all build on it.
//
// # Variables
//
// Every expression may use object, oldObject, request (the AdmissionRequest
// without uid, object and oldObject), namespaceObject and variables;
// params when the policy has a paramKind (Decls.Params); authorizer and
// authorizer.requestResource where the caller allows them
// (Decls.Authorizer). A Compiler holds one policy's variables: each is
// compiled in order and may use the ones before it; its result type is
// then known to later expressions as a field of variables. NewCompiler
// compiles a loaded policy with every library this release knows;
// NewValidationCompiler and NewConditionCompiler serve API validation,
// which compiles new expressions against the previous minor release and
// match conditions without variables. Mutations are compiled by the same
// Compiler with Decls.Patch, which adds what only they may use: the
// Object and JSONPatch types (ApplyConfigurationType, JSONPatchListType)
// and jsonpatch.escapeKey. At evaluation an
// Activation computes a variable the first time an expression reads it and
// keeps the value for the other expressions of the same activation; its
// cost is charged to the expression that read it.
//
// # Values
//
// Objects are given to CEL as kube-apiserver 1.37 gives them to admission
// policies: without a schema. A typed object is wrapped by
// common.SchemalessTypedToVal, which reads fields lazily by reflection and
// looks exactly like its unstructured form; an unstructured object is
// adapted as is. Maps are maps, lists compare and concatenate in order,
// and property names are used verbatim (object['x-prop'] reads "x-prop").
// The API reference's escaping of property names ('__dash__', '__dot__',
// ...) and its set and map semantics of x-kubernetes-list-type lists
// belong to schema-typed values. kube-apiserver 1.37 builds those for CRD
// validation rules and for the type checking of the policy status (see
// the policy package: there an expression must use the escaped names), not
// for admission; evaluating against schema-typed values here would let a
// policy decide differently than in a cluster, which is the one thing
// portcullis must not do. apiVersion and kind are always present at the
// root of object, oldObject and params, set from the request or the
// paramKind when a typed object lacks them. Uses tells which variables a
// policy reads, so that a request converts only those: Values converts
// each the first time a policy of the request reads it and shares it with
// the others.
//
// # Cost
//
// The limits are internal/cel's, under kube-apiserver's names. Each
// program stops at PerCallLimit (1,000,000) and checks every
// CheckFrequency comprehension iterations whether its request was
// cancelled. The expressions of one evaluation set share a budget
// (RuntimeCELCostBudget, 10,000,000, for validations, the part left of it
// for messages, a fresh one for audit annotations,
// RuntimeCELCostBudgetMatchConditions, 2,500,000, for match conditions, a
// fresh one for each mutation, which EvalValue evaluates on its own).
// Exhausting a budget ends the set with kube-apiserver's error.
// Expression.EstimateCost gives the static estimate of the reference's
// cost model, with untyped inputs as large as MaxRequestSizeBytes;
// kube-apiserver does not reject admission policies on it (objects are
// untyped, so estimates are unbounded), and neither does portcullis.
package celenv
