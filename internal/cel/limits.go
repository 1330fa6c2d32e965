package cel

import celconfig "k8s.io/apiserver/pkg/apis/cel"

// The limits of kube-apiserver 1.37, under its names (from
// k8s.io/apiserver/pkg/apis/cel unless noted). Costs are in the units of
// the Kubernetes cost model; kube-apiserver reckons 1,000,000 of them at
// about 0.1 s of one core.
const (
	// PerCallLimit (1,000,000) stops one evaluation of one expression. The
	// base environment sets it on every program, so every user has it.
	PerCallLimit = celconfig.PerCallLimit

	// RuntimeCELCostBudget (10,000,000) is shared by the expressions
	// evaluated together for one request: the validations of one policy
	// binding (messages get what they leave), its audit annotations, one
	// mutation; for CRD validation rules, those of one object.
	RuntimeCELCostBudget = celconfig.RuntimeCELCostBudget

	// RuntimeCELCostBudgetMatchConditions (2,500,000) is shared by the
	// match conditions of one admission webhook or policy binding.
	RuntimeCELCostBudgetMatchConditions = celconfig.RuntimeCELCostBudgetMatchConditions

	// CheckFrequency (100) is how many comprehension iterations an
	// admission program runs between checks that its context is done
	// (InterruptChecks).
	CheckFrequency = celconfig.CheckFrequency

	// MaxRequestSizeBytes (3 MiB) bounds the size of an untyped input
	// (object, oldObject, params) in static cost estimates, and the
	// result of a mutation.
	MaxRequestSizeBytes = celconfig.MaxRequestSizeBytes

	// MaxEvaluatedMessageExpressionSizeBytes (5 KiB) is the longest
	// message a messageExpression may produce.
	MaxEvaluatedMessageExpressionSizeBytes = celconfig.MaxEvaluatedMessageExpressionSizeBytes

	// MaxExpressionCodePoints (100,000) is the longest expression the
	// parser accepts: cel-go's default, which kube-apiserver keeps and so
	// does the base. Longer ones fail to compile with cel-go's message.
	MaxExpressionCodePoints = 100_000

	// MaxAuditAnnotationValueExpressionLength (5 KiB) is the longest
	// valueExpression of an audit annotation that API validation admits:
	// kube-apiserver's maxAuditAnnotationValueExpressionLength (in
	// k8s.io/kubernetes pkg/apis/admissionregistration/validation), below
	// the 10 KiB limit of an audit annotation value because an expression
	// that concatenates strings usually yields a longer value.
	MaxAuditAnnotationValueExpressionLength = 5 << 10
)
