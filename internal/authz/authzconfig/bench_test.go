package authzconfig

import (
	"testing"

	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// BenchmarkChain is the chain's own cost around its authorizers: the
// system:masters rule, then Node (no opinion) and RBAC (allows).
func BenchmarkChain(b *testing.B) {
	cfg, err := FromFlags([]string{"Node,RBAC"}, "", "", DefaultWebhookVersion, 0, 0)
	if err != nil {
		b.Fatal(err)
	}
	az, err := Build(cfg, Deps{
		Node: &fakeAuthorizer{name: "node"},
		RBAC: &fakeAuthorizer{name: "rbac", allow: []string{"alice"}},
	})
	if err != nil {
		b.Fatal(err)
	}
	attrs := request("alice", "dev", "system:authenticated")
	b.ReportAllocs()
	for b.Loop() {
		if d, _, _ := az.Authorize(background, attrs); d != authorizer.DecisionAllow {
			b.Fatal(d)
		}
	}
}
