package mutating

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/defaults"
	"github.com/portcullis/portcullis/internal/request"
)

// The mutations of the benchmarks: the usual label, as an apply
// configuration and as a JSON patch.
var (
	benchApply = admissionregistrationv1.Mutation{
		PatchType:          admissionregistrationv1.PatchTypeApplyConfiguration,
		ApplyConfiguration: &admissionregistrationv1.ApplyConfiguration{Expression: `Object{metadata: Object.metadata{labels: {"environment": "production"}}}`},
	}
	benchJSONPatch = admissionregistrationv1.Mutation{
		PatchType: admissionregistrationv1.PatchTypeJSONPatch,
		JSONPatch: &admissionregistrationv1.JSONPatch{Expression: `[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("example.com/environment"), value: "production"}]`},
	}
)

func benchPolicy(name, resource string, m admissionregistrationv1.Mutation) *admissionregistrationv1.MutatingAdmissionPolicy {
	p := &admissionregistrationv1.MutatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{resource}},
				}}},
			},
			ReinvocationPolicy: admissionregistrationv1.NeverReinvocationPolicy,
			Mutations:          []admissionregistrationv1.Mutation{m},
		},
	}
	defaults.Apply(p)
	return p
}

func benchBinding(name, policy string, nsSelector *metav1.LabelSelector) *admissionregistrationv1.MutatingAdmissionPolicyBinding {
	b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: policy},
	}
	if nsSelector != nil {
		b.Spec.MatchResources = &admissionregistrationv1.MatchResources{NamespaceSelector: nsSelector}
	}
	defaults.Apply(b)
	return b
}

// policiesOfWhichThreeMatch configures n policies with a binding each;
// three of them match pods, the others other resources.
func policiesOfWhichThreeMatch(m admissionregistrationv1.Mutation) func(n int) []runtime.Object {
	return func(n int) []runtime.Object {
		var objs []runtime.Object
		for i := range n {
			res := fmt.Sprintf("things%d", i)
			if i%(max(n/3, 1)) == 0 && i/(max(n/3, 1)) < 3 {
				res = "pods"
			}
			name := fmt.Sprintf("policy-%04d", i)
			objs = append(objs, benchPolicy(name, res, m), benchBinding(name+"-binding", name, nil))
		}
		return objs
	}
}

// bindingsPerNamespace configures one pod policy with n bindings, one per
// namespace; three select the request's namespace.
func bindingsPerNamespace(n int) []runtime.Object {
	objs := []runtime.Object{benchPolicy("pods", "pods", benchApply)}
	for i := range n {
		ns := fmt.Sprintf("tenant-%04d", i)
		if i < 3 && n >= 3 {
			ns = "default"
		}
		sel := &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}
		objs = append(objs, benchBinding(fmt.Sprintf("binding-%04d", i), "pods", sel))
	}
	return objs
}

func benchPlugin(tb testing.TB, objs []runtime.Object) *Plugin {
	p, err := New(newEnv().options())
	if err != nil {
		tb.Fatal(err)
	}
	for _, o := range objs {
		p.Upsert(o)
	}
	return p
}

func benchAdmit(b *testing.B, objs []runtime.Object) {
	p := benchPlugin(b, objs)
	in := pod("default", "web", map[string]string{"app": "web"})
	ctx := request.WithState(context.Background(), &request.State{})
	a := podRequest(admission.Create, in, nil)
	if err := p.Admit(ctx, a); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		a.Object = in
		if err := p.Admit(ctx, a); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdmit admits a pod through n configured bindings, three of
// which apply to it and add a label.
func BenchmarkAdmit(b *testing.B) {
	for _, n := range []int{0, 10, 100, 1024} {
		b.Run(fmt.Sprintf("applyConfiguration/policies=%d", n), func(b *testing.B) { benchAdmit(b, policiesOfWhichThreeMatch(benchApply)(n)) })
	}
	for _, n := range []int{10, 1024} {
		b.Run(fmt.Sprintf("jsonPatch/policies=%d", n), func(b *testing.B) { benchAdmit(b, policiesOfWhichThreeMatch(benchJSONPatch)(n)) })
	}
	for _, n := range []int{10, 1024} {
		b.Run(fmt.Sprintf("applyConfiguration/namespaceBindings=%d", n), func(b *testing.B) { benchAdmit(b, bindingsPerNamespace(n)) })
	}
}

// TestScaling holds the performance goal: admission through 1,024
// configured bindings, three of which apply, keeps at least half the
// throughput it has with 10.
func TestScaling(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("timing test")
	}
	perRequest := func(objs []runtime.Object) time.Duration {
		p := benchPlugin(t, objs)
		in := pod("default", "web", map[string]string{"app": "web"})
		ctx := request.WithState(context.Background(), &request.State{})
		a := podRequest(admission.Create, in, nil)
		const n = 300
		best := time.Duration(math.MaxInt64)
		for range 3 {
			start := time.Now()
			for range n {
				a.Object = in
				if err := p.Admit(ctx, a); err != nil {
					t.Fatal(err)
				}
			}
			best = min(best, time.Since(start)/n)
		}
		return best
	}
	for _, shape := range []struct {
		name  string
		build func(int) []runtime.Object
	}{{"policies", policiesOfWhichThreeMatch(benchJSONPatch)}, {"namespaceBindings", bindingsPerNamespace}} {
		small, large := perRequest(shape.build(10)), perRequest(shape.build(1024))
		t.Logf("%s: 10 → %v, 1024 → %v per request", shape.name, small, large)
		if large > 2*small {
			t.Errorf("%s: 1,024 bindings cost %v per request, more than twice the %v of 10", shape.name, large, small)
		}
	}
}
