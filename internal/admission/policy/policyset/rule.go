package policyset

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// Rule names a policy's decision in the decision trace: "policy P",
// "policy P, binding B", "policy P, binding B, param NS/NAME" (binding
// empty for the policy's own configuration error, param nil without
// one). Built only for bindings that matched: it allocates.
func Rule(policy, binding string, param runtime.Object) string {
	// One concatenation each: one allocation per part.
	if binding == "" {
		return "policy " + policy
	}
	if param == nil {
		return "policy " + policy + ", binding " + binding
	}
	m, err := meta.Accessor(param)
	if err != nil {
		return "policy " + policy + ", binding " + binding
	}
	if ns := m.GetNamespace(); ns != "" {
		return "policy " + policy + ", binding " + binding + ", param " + ns + "/" + m.GetName()
	}
	return "policy " + policy + ", binding " + binding + ", param " + m.GetName()
}
