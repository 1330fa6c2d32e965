package webhook

import (
	"testing"

	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// BenchmarkAuthorizeCacheHit is the cost of a webhook decision served
// from the cache: building the review spec, its key, and the lookup.
func BenchmarkAuthorizeCacheHit(b *testing.B) {
	p := newPKI(b)
	hook := newFakeWebhook(b, p)
	az, err := New(Config{
		Name: "bench", KubeConfigFile: kubeconfig(b, p, hook.srv.URL, true, ""),
		Version: "v1", FailurePolicy: "NoOpinion",
		AuthorizedTTL: 1 << 62, UnauthorizedTTL: 1 << 62,
	})
	if err != nil {
		b.Fatal(err)
	}
	attrs := podsList("alice")
	if d, _, err := az.Authorize(background, attrs); d != authorizer.DecisionAllow || err != nil {
		b.Fatalf("warm-up: (%v, %v)", d, err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if d, _, _ := az.Authorize(background, attrs); d != authorizer.DecisionAllow {
			b.Fatal(d)
		}
	}
	b.StopTimer()
	if hook.calls.Load() != 1 {
		b.Fatalf("%d webhook calls, want 1", hook.calls.Load())
	}
}

// BenchmarkMatch is the cost of evaluating match conditions per request.
func BenchmarkMatch(b *testing.B) {
	cases := map[string][]string{
		"1 condition": {"request.user != 'system:anonymous'"},
		"4 conditions": {
			"request.user != 'system:anonymous'",
			"has(request.resourceAttributes)",
			"request.resourceAttributes.namespace != 'kube-system'",
			"!('system:masters' in request.groups)",
		},
	}
	for name, exprs := range cases {
		b.Run(name, func(b *testing.B) {
			m, errs := CompileMatchConditions(conds(exprs...), nil)
			if len(errs) > 0 {
				b.Fatal(errs)
			}
			spec := SpecFor(podsList("alice"))
			b.ReportAllocs()
			for b.Loop() {
				if ok, err := m.Match(background, &spec); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
