package policytest

import (
	"fmt"
	"math"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// PoliciesOfWhichThreeMatch configures n policies with a binding each,
// which policy returns for a policy name and resource: three of them are
// for pods, the others for other resources.
func PoliciesOfWhichThreeMatch(n int, policy func(name, resource string) []runtime.Object) []runtime.Object {
	var objs []runtime.Object
	step := max(n/3, 1)
	for i := range n {
		res := fmt.Sprintf("things%d", i)
		if i%step == 0 && i/step < 3 {
			res = "pods"
		}
		objs = append(objs, policy(fmt.Sprintf("policy-%04d", i), res)...)
	}
	return objs
}

// BindingsPerNamespace configures n bindings of one policy, which binding
// returns for a binding name and namespace selector: one per namespace,
// three of them for the namespace "default".
func BindingsPerNamespace(n int, binding func(name string, nsSelector *metav1.LabelSelector) runtime.Object) []runtime.Object {
	var objs []runtime.Object
	for i := range n {
		ns := fmt.Sprintf("tenant-%04d", i)
		if i < 3 && n >= 3 {
			ns = "default"
		}
		sel := &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}
		objs = append(objs, binding(fmt.Sprintf("binding-%04d", i), sel))
	}
	return objs
}

// Bench runs an admission after a first, untimed one, reporting
// allocations; an error fails the benchmark.
func Bench(b *testing.B, admit func() error) {
	if err := admit(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := admit(); err != nil {
			b.Fatal(err)
		}
	}
}

// Shape is a way to configure n bindings.
type Shape struct {
	Name  string
	Build func(n int) []runtime.Object
}

// Scaling holds the performance goal of the plugins: admission through
// 1,024 configured bindings, three of which apply, keeps at least half
// the throughput it has with 10. admitter returns, for a configuration,
// one admission; each is timed n times in a row, the best of rounds.
func Scaling(t *testing.T, shapes []Shape, n, rounds int, admitter func(objs []runtime.Object) func() error) {
	t.Helper()
	perRequest := func(objs []runtime.Object) time.Duration {
		admit := admitter(objs)
		best := time.Duration(math.MaxInt64)
		for range rounds {
			start := time.Now()
			for range n {
				if err := admit(); err != nil {
					t.Fatal(err)
				}
			}
			best = min(best, time.Since(start)/time.Duration(n))
		}
		return best
	}
	for _, shape := range shapes {
		small, large := perRequest(shape.Build(10)), perRequest(shape.Build(1024))
		t.Logf("%s: 10 → %v, 1024 → %v per request", shape.Name, small, large)
		if large > 2*small {
			t.Errorf("%s: 1,024 bindings cost %v per request, more than twice the %v of 10", shape.Name, large, small)
		}
	}
}
