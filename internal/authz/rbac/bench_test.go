package rbac

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// benchCluster holds the default policy plus n bindings, half of them
// ClusterRoleBindings of one of 20 ten-rule roles to user-<i>, half
// RoleBindings of edit in one of 100 namespaces to user-<i> and one of 50
// team groups (so that a namespace holds a few bindings per team).
func benchCluster(b *testing.B, n int) *Authorizer {
	b.Helper()
	a := defaultCluster(b)
	for r := range 20 {
		var rules []rbacv1.PolicyRule
		for k := range 10 {
			rules = append(rules, pr(l("get", "list", "watch"), l(fmt.Sprintf("g%d.example.com", k)), l(fmt.Sprintf("things%d", r), fmt.Sprintf("things%d/status", r))))
		}
		rules = append(rules, pr(l("get", "list", "watch"), l(""), l("pods", "pods/log", "services")))
		mustUpsert(b, a, cr(fmt.Sprintf("reader-%d", r), rules...))
	}
	for i := range n {
		u := userSubject(fmt.Sprintf("user-%d", i))
		if i%2 == 0 {
			mustUpsert(b, a, crb(fmt.Sprintf("crb-%d", i), fmt.Sprintf("reader-%d", i%20), u))
		} else {
			mustUpsert(b, a, rb(fmt.Sprintf("ns-%d", i%100), fmt.Sprintf("rb-%d", i), "ClusterRole", "edit", u, groupSubject(fmt.Sprintf("team-%d", (i/100)%50))))
		}
	}
	return a
}

func benchUser(i int) user.Info {
	return &user.DefaultInfo{Name: fmt.Sprintf("user-%d", i), Groups: []string{fmt.Sprintf("team-%d", (i/100)%50), user.AllAuthenticated}}
}

// BenchmarkAuthorize measures one decision for a user with a cluster-wide
// binding and one with a namespaced binding, allowed and not, as the
// number of bindings that name other users grows. Besides ns/op it reports
// the median and 99th percentile of 100,000 individually timed decisions
// (each timing includes the clock reads, some tens of ns).
func BenchmarkAuthorize(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10, 1000, 10000} {
		a := benchCluster(b, n)
		clusterUser, nsUser := benchUser(n-2), benchUser(n-1) // the last bindings stored
		nsName := fmt.Sprintf("ns-%d", (n-1)%100)
		cases := []struct {
			name  string
			attrs *authorizer.AttributesRecord // a pointer, so that the call does not box a copy
			want  authorizer.Decision
		}{
			{"cluster/allowed", &authorizer.AttributesRecord{User: clusterUser, Verb: "get", Resource: "pods", Subresource: "log", Namespace: "any", Name: "web", ResourceRequest: true}, authorizer.DecisionAllow},
			{"cluster/forbidden", &authorizer.AttributesRecord{User: clusterUser, Verb: "delete", Resource: "pods", Namespace: "any", Name: "web", ResourceRequest: true}, authorizer.DecisionNoOpinion},
			{"namespace/allowed", &authorizer.AttributesRecord{User: nsUser, Verb: "update", APIGroup: "apps", Resource: "deployments", Subresource: "scale", Namespace: nsName, Name: "web", ResourceRequest: true}, authorizer.DecisionAllow},
			{"namespace/forbidden", &authorizer.AttributesRecord{User: nsUser, Verb: "update", Resource: "resourcequotas", Namespace: nsName, Name: "q", ResourceRequest: true}, authorizer.DecisionNoOpinion},
			{"nonresource/allowed", &authorizer.AttributesRecord{User: nsUser, Verb: "get", Path: "/apis/apps/v1"}, authorizer.DecisionAllow},
		}
		for _, c := range cases {
			b.Run(fmt.Sprintf("bindings=%d/%s", n, c.name), func(b *testing.B) {
				if d, reason, _ := a.Authorize(ctx, c.attrs); d != c.want {
					b.Fatalf("got %v %q, want %v", d, reason, c.want)
				}
				b.ReportAllocs()
				for b.Loop() {
					_, _, _ = a.Authorize(ctx, c.attrs)
				}
				b.StopTimer()
				p50, p99 := latencies(100_000, func() { _, _, _ = a.Authorize(ctx, c.attrs) })
				b.ReportMetric(float64(p50.Nanoseconds()), "p50-ns")
				b.ReportMetric(float64(p99.Nanoseconds()), "p99-ns")
			})
		}
	}
}

// latencies times n calls of f one by one and returns the median and the
// 99th percentile.
func latencies(n int, f func()) (p50, p99 time.Duration) {
	samples := make([]time.Duration, n)
	for i := range samples {
		start := time.Now()
		f()
		samples[i] = time.Since(start)
	}
	slices.Sort(samples)
	return samples[n/2], samples[n*99/100]
}

// BenchmarkUpsert measures storing a binding and a ten-rule role into an
// Authorizer that already holds 10,000 bindings.
func BenchmarkUpsert(b *testing.B) {
	a := benchCluster(b, 10000)
	b.Run("ClusterRoleBinding", func(b *testing.B) {
		obj := crb("crb-0", "reader-0", userSubject("user-0"), groupSubject("team-0"))
		b.ReportAllocs()
		for b.Loop() {
			_ = a.Upsert(obj)
		}
	})
	b.Run("RoleBinding", func(b *testing.B) {
		obj := rb("ns-1", "rb-1", "ClusterRole", "edit", userSubject("user-1"), groupSubject("team-1"))
		b.ReportAllocs()
		for b.Loop() {
			_ = a.Upsert(obj)
		}
	})
	b.Run("ClusterRole", func(b *testing.B) {
		var rules []rbacv1.PolicyRule
		for k := range 10 {
			rules = append(rules, pr(l("get", "list", "watch"), l(fmt.Sprintf("g%d.example.com", k)), l("things", "things/status")))
		}
		obj := cr("reader-0", rules...)
		b.ReportAllocs()
		for b.Loop() {
			_ = a.Upsert(obj)
		}
	})
}

// BenchmarkRulesFor measures the rule listing behind SelfSubjectRulesReview.
func BenchmarkRulesFor(b *testing.B) {
	a := benchCluster(b, 10000)
	u := benchUser(9999)
	b.ReportAllocs()
	for b.Loop() {
		_, _, _, _ = a.RulesFor(context.Background(), u, "ns-99")
	}
}

// BenchmarkAuthorizeSharedGroup shows where the cost does grow: with the
// bindings that name the requester. Here one group is named by 1,000
// RoleBindings of 20 roles in one namespace, and a forbidden request looks
// at each binding (each distinct role only once).
func BenchmarkAuthorizeSharedGroup(b *testing.B) {
	a := benchCluster(b, 10)
	for i := range 1000 {
		mustUpsert(b, a, rb("shared", fmt.Sprintf("rb-%d", i), "ClusterRole", fmt.Sprintf("reader-%d", i%20), groupSubject("everyone")))
	}
	attrs := &authorizer.AttributesRecord{
		User: &user.DefaultInfo{Name: "x", Groups: []string{"everyone"}}, Verb: "delete", Resource: "pods", Namespace: "shared", ResourceRequest: true,
	}
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = a.Authorize(context.Background(), attrs)
	}
	b.StopTimer()
	p50, p99 := latencies(20_000, func() { _, _, _ = a.Authorize(context.Background(), attrs) })
	b.ReportMetric(float64(p50.Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(p99.Nanoseconds()), "p99-ns")
}
