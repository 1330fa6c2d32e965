package mutating

import (
	"context"
	"fmt"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/policytest"
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
		return policytest.PoliciesOfWhichThreeMatch(n, func(name, resource string) []runtime.Object {
			return []runtime.Object{benchPolicy(name, resource, m), benchBinding(name+"-binding", name, nil)}
		})
	}
}

// bindingsPerNamespace configures one pod policy with n bindings, one per
// namespace; three select the request's namespace.
func bindingsPerNamespace(n int) []runtime.Object {
	return append([]runtime.Object{benchPolicy("pods", "pods", benchApply)},
		policytest.BindingsPerNamespace(n, func(name string, sel *metav1.LabelSelector) runtime.Object { return benchBinding(name, "pods", sel) })...)
}

// admitter returns one admission of a pod through the plugin of objs.
func admitter(tb testing.TB) func(objs []runtime.Object) func() error {
	return func(objs []runtime.Object) func() error {
		p := policytest.Load(newPlugin(tb, options(newEnv())), objs...)
		in := pod("default", "web", map[string]string{"app": "web"})
		ctx := request.WithState(context.Background(), &request.State{})
		a := podRequest(admission.Create, in, nil)
		return func() error {
			a.Object = in
			return p.Admit(ctx, a)
		}
	}
}

func benchAdmit(b *testing.B, objs []runtime.Object) {
	policytest.Bench(b, admitter(b)(objs))
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

// BenchmarkScaling measures the performance goal: admission through
// 1,024 configured bindings, three of which apply, keeps at least half the
// throughput it has with 10 ("%kept" ≥ 50); "ns/binding" is the cost of
// each binding that does not apply.
func BenchmarkScaling(b *testing.B) {
	policytest.BenchScaling(b, []policytest.Shape{{Name: "policies", Build: policiesOfWhichThreeMatch(benchJSONPatch)}, {Name: "namespaceBindings", Build: bindingsPerNamespace}}, admitter(b))
}
