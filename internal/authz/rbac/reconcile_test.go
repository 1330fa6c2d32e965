package rbac

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func defaulted[T interface{ GetObjectMeta() metav1.Object }](o T) T {
	m := o.GetObjectMeta()
	m.SetLabels(map[string]string{bootstrapLabel: bootstrapLabelValue})
	m.SetAnnotations(map[string]string{rbacv1.AutoUpdateAnnotationKey: "true"})
	return o
}

func protected[T interface{ GetObjectMeta() metav1.Object }](o T) T {
	o.GetObjectMeta().SetAnnotations(map[string]string{rbacv1.AutoUpdateAnnotationKey: "false"})
	return o
}

func TestReconcile(t *testing.T) {
	listPods := pr(l("list"), l(""), l("pods"))
	sel := func(k string) metav1.LabelSelector {
		return metav1.LabelSelector{MatchLabels: map[string]string{k: "true"}}
	}

	// An administrator changed a default label and removed the annotation.
	edited := cr("r", getPods)
	edited.Labels = map[string]string{bootstrapLabel: "changed-by-admin"}
	wantEdited := defaulted(cr("r", getPods))
	wantEdited.Labels[bootstrapLabel] = "changed-by-admin"
	wantEdited.Labels["team"] = "a"
	desiredEdited := defaulted(cr("r", getPods))
	desiredEdited.Labels["team"] = "a"

	tests := []struct {
		name     string
		existing runtime.Object
		desired  runtime.Object
		want     Reconciled
	}{
		{"nothing stored", nil, defaulted(cr("r", getPods)),
			Reconciled{Action: ActionCreate, Object: defaulted(cr("r", getPods))}},
		{"typed nil counts as nothing stored", (*rbacv1.ClusterRole)(nil), defaulted(cr("r", getPods)),
			Reconciled{Action: ActionCreate, Object: defaulted(cr("r", getPods))}},
		{"up to date", defaulted(cr("r", getPods)), defaulted(cr("r", getPods)), Reconciled{Action: ActionNone}},
		{"extra rules are kept", defaulted(cr("r", getPods, getSecrets)), defaulted(cr("r", getPods)), Reconciled{Action: ActionNone}},
		{"missing rules are added as atoms", defaulted(cr("r", getPods)), defaulted(cr("r", pr(l("get", "list"), l(""), l("pods")))),
			Reconciled{Action: ActionUpdate, Object: defaulted(cr("r", getPods, listPods))}},
		{"missing labels and annotations are added, existing values kept", edited, desiredEdited,
			Reconciled{Action: ActionUpdate, Object: wantEdited}},
		{"protected", protected(cr("r")), defaulted(cr("r", getPods)), Reconciled{Action: ActionNone, Protected: true}},
		{"aggregation selectors added", defaulted(aggregatedBy("admin", sel("a"))), defaulted(aggregatedBy("admin", sel("b"), sel("a"))),
			Reconciled{Action: ActionUpdate, Object: defaulted(aggregatedBy("admin", sel("a"), sel("b")))}},
		{"aggregation added to a plain role, its rules kept", defaulted(cr("admin", getPods)), defaulted(aggregatedBy("admin", sel("a"))),
			Reconciled{Action: ActionUpdate, Object: func() runtime.Object {
				o := defaulted(aggregatedBy("admin", sel("a")))
				o.Rules = []rbacv1.PolicyRule{getPods}
				return o
			}()}},
		{"aggregation no longer wanted", defaulted(aggregatedBy("r", sel("a"))), defaulted(cr("r")),
			Reconciled{Action: ActionUpdate, Object: defaulted(cr("r"))}},
		{"aggregated role with gathered rules is up to date", func() runtime.Object {
			o := defaulted(aggregatedBy("view", sel("a")))
			o.Rules = []rbacv1.PolicyRule{getPods}
			return o
		}(), defaulted(aggregatedBy("view", sel("a"))), Reconciled{Action: ActionNone}},

		{"role", defaulted(newRole("kube-system", "r", getPods)), defaulted(newRole("kube-system", "r", getSecrets)),
			Reconciled{Action: ActionUpdate, Object: defaulted(newRole("kube-system", "r", getPods, getSecrets))}},

		{"binding up to date, extra subjects kept", defaulted(crb("b", "r", userSubject("a"), userSubject("extra"))), defaulted(crb("b", "r", userSubject("a"))),
			Reconciled{Action: ActionNone}},
		{"binding subjects added once", defaulted(crb("b", "r", userSubject("a"))), defaulted(crb("b", "r", groupSubject("g"), userSubject("a"), groupSubject("g"))),
			Reconciled{Action: ActionUpdate, Object: defaulted(crb("b", "r", userSubject("a"), groupSubject("g")))}},
		{"binding roleRef differs", defaulted(crb("b", "other", userSubject("a"))), defaulted(crb("b", "r", userSubject("x"))),
			Reconciled{Action: ActionRecreate, Object: defaulted(crb("b", "r", userSubject("x")))}},
		{"protected binding", protected(crb("b", "other")), defaulted(crb("b", "r", userSubject("x"))),
			Reconciled{Action: ActionNone, Protected: true}},
		{"role binding", defaulted(rb("kube-system", "b", "Role", "r")), defaulted(rb("kube-system", "b", "Role", "r", serviceAccountSubject("kube-system", "x"))),
			Reconciled{Action: ActionUpdate, Object: defaulted(rb("kube-system", "b", "Role", "r", serviceAccountSubject("kube-system", "x")))}},
		{"role binding roleRef differs", defaulted(rb("ns", "b", "Role", "r")), defaulted(rb("ns", "b", "ClusterRole", "r")),
			Reconciled{Action: ActionRecreate, Object: defaulted(rb("ns", "b", "ClusterRole", "r"))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before runtime.Object
			if !isNil(tt.existing) {
				before = tt.existing.DeepCopyObject()
			}
			got, err := Reconcile(tt.existing, tt.desired)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if before != nil {
				if diff := cmp.Diff(before, tt.existing); diff != "" {
					t.Errorf("existing changed:\n%s", diff)
				}
			}
		})
	}
}

func TestReconcileErrors(t *testing.T) {
	if _, err := Reconcile(cr("r"), crb("r", "r")); !errors.Is(err, ErrKindMismatch) {
		t.Errorf("kind mismatch: %v", err)
	}
	if _, err := Reconcile(nil, &metav1.Status{}); !errors.Is(err, ErrUnsupportedObject) {
		t.Errorf("unsupported: %v", err)
	}
	if _, err := Reconcile(nil, nil); !errors.Is(err, ErrUnsupportedObject) {
		t.Errorf("nil desired: %v", err)
	}
}

// TestReconcileBootstrapIsIdempotent: a second start changes nothing.
func TestReconcileBootstrapIsIdempotent(t *testing.T) {
	for _, obj := range Bootstrap().Objects() {
		first, err := Reconcile(nil, obj)
		if err != nil || first.Action != ActionCreate {
			t.Fatalf("%v: %v %v", obj, first.Action, err)
		}
		again, err := Reconcile(first.Object, obj)
		if err != nil || again.Action != ActionNone {
			m := obj.(metav1.Object)
			t.Errorf("%s: second reconcile %v %v", m.GetName(), again.Action, err)
		}
	}
}
