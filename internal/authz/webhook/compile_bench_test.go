package webhook

import "testing"

// BenchmarkCompileMatchConditions is the cost of compiling a webhook's
// match conditions when the authorization configuration is loaded.
func BenchmarkCompileMatchConditions(b *testing.B) {
	c := conds(
		"request.user != 'system:anonymous'",
		"has(request.resourceAttributes) && request.resourceAttributes.namespace != 'kube-system'",
	)
	b.ReportAllocs()
	for b.Loop() {
		if _, errs := CompileMatchConditions(c, nil); len(errs) > 0 {
			b.Fatal(errs)
		}
	}
}
