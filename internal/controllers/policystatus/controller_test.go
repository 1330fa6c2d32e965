package policystatus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/controllers/controllertest"
)

// checker warns once per validation whose expression mentions "xprop".
type checker struct{}

func (checker) Check(p *admissionregistrationv1.ValidatingAdmissionPolicy) []admissionregistrationv1.ExpressionWarning {
	var out []admissionregistrationv1.ExpressionWarning
	for i, v := range p.Spec.Validations {
		if v.Expression == "object.spec.xprop == 'a'" {
			out = append(out, admissionregistrationv1.ExpressionWarning{FieldRef: fmt.Sprintf("spec.validations[%d].expression", i), Warning: "no such field"})
		}
	}
	return out
}

// flaky fails the first write of each policy named in fail.
type flaky struct {
	next StatusWriter
	mu   sync.Mutex
	fail map[string]bool
}

func (f *flaky) ApplyStatus(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	name := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy).Name
	f.mu.Lock()
	fail := f.fail[name]
	delete(f.fail, name)
	f.mu.Unlock()
	if fail {
		return nil, errors.New("injected conflict")
	}
	return f.next.ApplyStatus(ctx, obj, manager)
}

func TestStatus(t *testing.T) {
	env := controllertest.New(t)
	ctx := context.Background()
	create := func(name, expr string) {
		t.Helper()
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
					RuleWithOperations: admissionregistrationv1.RuleWithOperations{Operations: []admissionregistrationv1.OperationType{"CREATE"},
						Rule: admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}}},
				Validations: []admissionregistrationv1.Validation{{Expression: expr}}}}
		if _, err := env.API.Create(ctx, p, "test"); err != nil {
			t.Fatal(err)
		}
	}
	create("clean", "true")
	create("warned", "object.spec.xprop == 'a'")
	w := &flaky{next: env.API, fail: map[string]bool{"warned": true}}
	controllertest.Run(t, New(env.Objects, checker{}, w, slog.New(slog.DiscardHandler)).Run)

	get := func(name string) *admissionregistrationv1.ValidatingAdmissionPolicy {
		obj, err := env.Objects.Get(ctx, policies, "", name)
		if err != nil {
			t.Fatal(err)
		}
		return obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
	}
	for name, warnings := range map[string]int{"clean": 0, "warned": 1} {
		controllertest.Eventually(t, func() (bool, string) {
			p := get(name)
			ok := p.Status.ObservedGeneration == p.Generation && p.Status.TypeChecking != nil && len(p.Status.TypeChecking.ExpressionWarnings) == warnings
			return ok, fmt.Sprintf("%s: generation %d, status %+v", name, p.Generation, p.Status)
		})
	}

	// A new generation is checked again.
	p := get("clean")
	p.Spec.Validations = append(p.Spec.Validations, admissionregistrationv1.Validation{Expression: "object.spec.xprop == 'a'"})
	if _, err := env.API.Apply(ctx, p, "test"); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, func() (bool, string) {
		p := get("clean")
		ok := p.Generation == 2 && p.Status.ObservedGeneration == 2 && len(p.Status.TypeChecking.ExpressionWarnings) == 1
		return ok, fmt.Sprintf("generation %d, status %+v", p.Generation, p.Status)
	})

	// Fixing the warning removes typeChecking, as kube-controller-manager's
	// apply of an empty one does.
	p = get("clean")
	p.Spec.Validations = p.Spec.Validations[:len(p.Spec.Validations)-1]
	if _, err := env.API.Apply(ctx, p, "test"); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, func() (bool, string) {
		p := get("clean")
		ok := p.Generation == 3 && p.Status.ObservedGeneration == 3 && p.Status.TypeChecking == nil
		return ok, fmt.Sprintf("generation %d, status %+v", p.Generation, p.Status)
	})
}
