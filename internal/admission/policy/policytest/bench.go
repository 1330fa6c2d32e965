package policytest

import (
	"fmt"
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

// BenchScaling measures the performance goal of the plugins: admission
// through 1,024 configured bindings, three of which apply, keeps at least
// half the throughput it has with 10. admitter returns, for a
// configuration, one admission. For each shape, every iteration admits
// once through 10 bindings and once through 1,024, so that both see the
// same machine, and the benchmark reports the time of each ("ns@10",
// "ns@1024"), the cost of each binding beyond the tenth ("ns/binding")
// and the throughput that 1,024 bindings keep ("%kept", the goal: 50 or
// more).
func BenchScaling(b *testing.B, shapes []Shape, admitter func(objs []runtime.Object) func() error) {
	for _, shape := range shapes {
		b.Run(shape.Name, func(b *testing.B) {
			small, large := admitter(shape.Build(10)), admitter(shape.Build(1024))
			for _, admit := range []func() error{small, large} {
				if err := admit(); err != nil {
					b.Fatal(err)
				}
			}
			// timed runs admit and adds its time to *total.
			timed := func(admit func() error, total *time.Duration) {
				start := time.Now()
				if err := admit(); err != nil {
					b.Fatal(err)
				}
				*total += time.Since(start)
			}
			var tSmall, tLarge time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			// The order alternates: the second admission of an iteration
			// finds the caches warmed by the first.
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 {
					timed(small, &tSmall)
					timed(large, &tLarge)
				} else {
					timed(large, &tLarge)
					timed(small, &tSmall)
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(tSmall.Nanoseconds())/n, "ns@10")
			b.ReportMetric(float64(tLarge.Nanoseconds())/n, "ns@1024")
			b.ReportMetric(float64((tLarge-tSmall).Nanoseconds())/n/(1024-10), "ns/binding")
			b.ReportMetric(100*float64(tSmall)/float64(tLarge), "%kept")
		})
	}
}
