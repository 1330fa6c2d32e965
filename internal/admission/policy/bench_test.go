package policy

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/cel/common"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/defaults"
	"github.com/portcullis/portcullis/internal/request"
)

// benchExpression is a typical validation: no privileged containers.
const benchExpression = `object.spec.containers.all(c, !has(c.securityContext) || !has(c.securityContext.privileged) || c.securityContext.privileged != true)`

func benchPolicy(name, resource, expr string, nsSelector *metav1.LabelSelector) *admissionregistrationv1.ValidatingAdmissionPolicy {
	p := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{
				NamespaceSelector: nsSelector,
				ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{resource}},
				}}},
			},
			Validations: []admissionregistrationv1.Validation{{Expression: expr, Message: "no privileged containers"}},
		},
	}
	defaults.Apply(p)
	return p
}

func benchBinding(name, policy string, nsSelector *metav1.LabelSelector) *admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{
			PolicyName:        policy,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny},
		},
	}
	if nsSelector != nil {
		b.Spec.MatchResources = &admissionregistrationv1.MatchResources{NamespaceSelector: nsSelector}
	}
	defaults.Apply(b)
	return b
}

// policiesOfWhichThreeMatch configures n policies with a binding each; three
// of them match pods, the others other resources.
func policiesOfWhichThreeMatch(n int) []runtime.Object {
	var objs []runtime.Object
	for i := range n {
		res := fmt.Sprintf("things%d", i)
		if i%(max(n/3, 1)) == 0 && i/(max(n/3, 1)) < 3 {
			res = "pods"
		}
		name := fmt.Sprintf("policy-%04d", i)
		objs = append(objs, benchPolicy(name, res, benchExpression, nil), benchBinding(name+"-binding", name, nil))
	}
	return objs
}

// bindingsPerNamespace configures one pod policy with n bindings, one per
// namespace; three select the request's namespace.
func bindingsPerNamespace(n int) []runtime.Object {
	objs := []runtime.Object{benchPolicy("pods", "pods", benchExpression, nil)}
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

func benchValidate(b *testing.B, objs []runtime.Object) {
	e := newEnv()
	p := newPlugin(e.options(), objs...)
	a := podRequest(admission.Create, pod("default", "web", nil), nil)
	ctx := request.WithState(context.Background(), &request.State{})
	if err := p.Validate(ctx, a); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := p.Validate(ctx, a); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidate admits a pod through n configured bindings, three of
// which apply to it.
func BenchmarkValidate(b *testing.B) {
	for _, n := range []int{0, 10, 100, 1024} {
		b.Run(fmt.Sprintf("policies=%d", n), func(b *testing.B) { benchValidate(b, policiesOfWhichThreeMatch(n)) })
	}
	for _, n := range []int{10, 100, 1024} {
		b.Run(fmt.Sprintf("namespaceBindings=%d", n), func(b *testing.B) { benchValidate(b, bindingsPerNamespace(n)) })
	}
}

// BenchmarkSingleValidation admits a pod through one policy with one
// validation, beside BenchmarkCELFloor.
func BenchmarkSingleValidation(b *testing.B) {
	benchValidate(b, []runtime.Object{benchPolicy("p", "pods", benchExpression, nil), benchBinding("b", "p", nil)})
}

// BenchmarkCELFloor is cel-go evaluating the same compiled expression on
// the same object, with nothing around it.
func BenchmarkCELFloor(b *testing.B) {
	c := celenv.NewCompiler(false, nil)
	e := c.Compile(benchExpression, celenv.Decls{Authorizer: true}, cel.BoolType)
	if err := e.Err(); err != nil {
		b.Fatal(err)
	}
	prog := e.Program()
	obj := pod("default", "web", nil)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		vars := map[string]any{"object": common.SchemalessTypedToVal(obj)}
		if v, _, err := prog.Eval(vars); err != nil || v != types.True {
			b.Fatal(v, err)
		}
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
		p := newPlugin(newEnv().options(), objs...)
		a := podRequest(admission.Create, pod("default", "web", nil), nil)
		ctx := request.WithState(context.Background(), &request.State{})
		const n = 2000
		best := time.Duration(math.MaxInt64)
		for range 5 {
			start := time.Now()
			for range n {
				if err := p.Validate(ctx, a); err != nil {
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
	}{{"policies", policiesOfWhichThreeMatch}, {"namespaceBindings", bindingsPerNamespace}} {
		small, large := perRequest(shape.build(10)), perRequest(shape.build(1024))
		t.Logf("%s: 10 → %v, 1024 → %v per request", shape.name, small, large)
		if large > 2*small {
			t.Errorf("%s: 1,024 bindings cost %v per request, more than twice the %v of 10", shape.name, large, small)
		}
	}
}
