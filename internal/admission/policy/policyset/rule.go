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
	r := "policy " + policy
	if binding == "" {
		return r
	}
	r += ", binding " + binding
	if param == nil {
		return r
	}
	m, err := meta.Accessor(param)
	if err != nil {
		return r
	}
	r += ", param "
	if ns := m.GetNamespace(); ns != "" {
		r += ns + "/"
	}
	return r + m.GetName()
}
