package abac

import (
	"context"
	"testing"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// BenchmarkAuthorize: a request allowed by the last rule of the test
// policy, and one no rule allows (every rule is tried).
func BenchmarkAuthorize(b *testing.B) {
	a, err := New("testdata/policy.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		u    user.Info
	}{
		{name: "last rule", u: authenticated("zed")},
		{name: "no match", u: &user.DefaultInfo{Name: "nobody"}},
	} {
		// Boxed once, so that the loop measures Authorize only.
		var attrs authorizer.Attributes = res(bc.u, "create", "", "pods", "", "shared")
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				a.Authorize(ctx, attrs)
			}
		})
	}
}
