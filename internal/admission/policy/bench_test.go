package policy

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/cel/common"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/admission/policy/policytest"
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
	return policytest.PoliciesOfWhichThreeMatch(n, func(name, resource string) []runtime.Object {
		return []runtime.Object{benchPolicy(name, resource, benchExpression, nil), benchBinding(name+"-binding", name, nil)}
	})
}

// bindingsPerNamespace configures one pod policy with n bindings, one per
// namespace; three select the request's namespace.
func bindingsPerNamespace(n int) []runtime.Object {
	return append([]runtime.Object{benchPolicy("pods", "pods", benchExpression, nil)},
		policytest.BindingsPerNamespace(n, func(name string, sel *metav1.LabelSelector) runtime.Object { return benchBinding(name, "pods", sel) })...)
}

// validator returns one validation of a pod through the plugin of objs.
func validator(objs []runtime.Object) func() error {
	p := newPlugin(options(newEnv()), objs...)
	a := podRequest(admission.Create, pod("default", "web", nil), nil)
	ctx := request.WithState(context.Background(), &request.State{})
	return func() error { return p.Validate(ctx, a) }
}

// tracedValidator is validator with the decision trace kept, as the
// server keeps it for every request: a fresh state per request, so that
// the parts recorded do not pile up, with the authentication step the
// server records first (which allocates the trace's steps).
func tracedValidator(objs []runtime.Object) func() error {
	p := newPlugin(options(newEnv()), objs...)
	a := podRequest(admission.Create, pod("default", "web", nil), nil)
	return func() error {
		st := &request.State{Trace: true}
		st.AddStep(request.Step{Stage: request.StageAuthentication, Name: "x509 client certificate", Outcome: "authenticated"})
		return p.Validate(request.WithState(context.Background(), st), a)
	}
}

func benchValidate(b *testing.B, objs []runtime.Object) {
	policytest.Bench(b, validator(objs))
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

// BenchmarkValidateTraced is BenchmarkValidate with the decision trace
// kept: the parts of the three bindings that apply are recorded.
func BenchmarkValidateTraced(b *testing.B) {
	for _, n := range []int{10, 1024} {
		b.Run(fmt.Sprintf("policies=%d", n), func(b *testing.B) { policytest.Bench(b, tracedValidator(policiesOfWhichThreeMatch(n))) })
		b.Run(fmt.Sprintf("namespaceBindings=%d", n), func(b *testing.B) { policytest.Bench(b, tracedValidator(bindingsPerNamespace(n))) })
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

// BenchmarkScaling measures the performance goal: admission through
// 1,024 configured bindings, three of which apply, keeps at least half the
// throughput it has with 10 ("%kept" ≥ 50); "ns/binding" is the cost of
// each binding that does not apply.
func BenchmarkScaling(b *testing.B) {
	policytest.BenchScaling(b, []policytest.Shape{{Name: "policies", Build: policiesOfWhichThreeMatch}, {Name: "namespaceBindings", Build: bindingsPerNamespace}}, validator)
}
