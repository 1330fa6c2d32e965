package rbac

import (
	"fmt"
	"maps"
	"reflect"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Action is what reconciliation asks the caller to do with the stored
// object.
type Action string

// The actions of a Reconciled.
const (
	// ActionNone: the stored object is up to date, or protected.
	ActionNone Action = "none"
	// ActionCreate: nothing is stored; create Object.
	ActionCreate Action = "create"
	// ActionUpdate: replace the stored object with Object.
	ActionUpdate Action = "update"
	// ActionRecreate: a binding's roleRef, which cannot be updated, differs;
	// delete the stored binding, then create Object.
	ActionRecreate Action = "recreate"
)

// Reconciled is the outcome of Reconcile.
type Reconciled struct {
	Action Action
	// Object is what to write; nil for ActionNone.
	Object runtime.Object
	// Protected is set when the stored object carries
	// rbac.authorization.kubernetes.io/autoupdate: "false"; Action is then
	// ActionNone whatever differs.
	Protected bool
}

// Reconcile brings a stored role or binding (existing, nil when there is
// none) up to date with a default one (desired, from Bootstrap), as
// kube-apiserver does at start-up: desired labels and annotations are added
// where the stored object lacks the key; missing permissions are appended
// (as the atomic rules that are missing) and missing aggregation selectors
// and subjects added, while extra ones are kept; an aggregationRule that the
// default no longer has is removed; a binding whose roleRef differs is
// recreated. Objects annotated rbac.authorization.kubernetes.io/autoupdate:
// "false" are left alone. Neither argument is changed.
func Reconcile(existing, desired runtime.Object) (Reconciled, error) {
	if isNil(desired) {
		return Reconciled{}, fmt.Errorf("reconcile %T: %w", desired, ErrUnsupportedObject)
	}
	switch d := desired.(type) {
	case *rbacv1.ClusterRole:
		return reconcileTyped(existing, d, reconcileClusterRole)
	case *rbacv1.Role:
		return reconcileTyped(existing, d, reconcileRole)
	case *rbacv1.ClusterRoleBinding:
		return reconcileTyped(existing, d, reconcileClusterRoleBinding)
	case *rbacv1.RoleBinding:
		return reconcileTyped(existing, d, reconcileRoleBinding)
	default:
		return Reconciled{}, fmt.Errorf("reconcile %T: %w", desired, ErrUnsupportedObject)
	}
}

type rbacObject interface {
	runtime.Object
	metav1.Object
}

func reconcileTyped[T rbacObject](existing runtime.Object, desired T, fn func(existing, desired T) (T, Action)) (Reconciled, error) {
	if isNil(existing) {
		return Reconciled{Action: ActionCreate, Object: desired.DeepCopyObject()}, nil
	}
	e, ok := existing.(T)
	if !ok {
		return Reconciled{}, fmt.Errorf("reconcile %T with %T: %w", existing, desired, ErrKindMismatch)
	}
	if e.GetAnnotations()[rbacv1.AutoUpdateAnnotationKey] == "false" {
		return Reconciled{Action: ActionNone, Protected: true}, nil
	}
	obj, action := fn(e, desired)
	if action == ActionNone {
		return Reconciled{Action: ActionNone}, nil
	}
	return Reconciled{Action: action, Object: obj}, nil
}

func isNil(o runtime.Object) bool {
	if o == nil {
		return true
	}
	v := reflect.ValueOf(o)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// mergeMetadata adds desired labels and annotations whose keys out lacks
// and reports whether anything was added.
func mergeMetadata(out, desired metav1.Object) bool {
	changed := false
	merge := func(have, want map[string]string) map[string]string {
		for k, v := range want {
			if _, ok := have[k]; !ok {
				if have == nil {
					have = map[string]string{}
				}
				have[k] = v
				changed = true
			}
		}
		return have
	}
	out.SetLabels(merge(maps.Clone(out.GetLabels()), desired.GetLabels()))
	out.SetAnnotations(merge(maps.Clone(out.GetAnnotations()), desired.GetAnnotations()))
	return changed
}

func reconcileRules(have, want []rbacv1.PolicyRule) ([]rbacv1.PolicyRule, bool) {
	ok, missing := covers(have, want)
	if ok {
		return have, false
	}
	return append(have, missing...), true
}

func reconcileRole(existing, desired *rbacv1.Role) (*rbacv1.Role, Action) {
	out := existing.DeepCopy()
	changed := mergeMetadata(out, desired)
	var rulesChanged bool
	out.Rules, rulesChanged = reconcileRules(out.Rules, desired.Rules)
	return out, actionFor(changed || rulesChanged)
}

func reconcileClusterRole(existing, desired *rbacv1.ClusterRole) (*rbacv1.ClusterRole, Action) {
	out := existing.DeepCopy()
	changed := mergeMetadata(out, desired)
	var rulesChanged bool
	out.Rules, rulesChanged = reconcileRules(out.Rules, desired.Rules)
	changed = changed || rulesChanged

	switch {
	case desired.AggregationRule == nil && out.AggregationRule != nil:
		out.AggregationRule = nil
		changed = true
	case desired.AggregationRule != nil:
		var have []metav1.LabelSelector
		if out.AggregationRule != nil {
			have = out.AggregationRule.ClusterRoleSelectors
		}
		var missing []metav1.LabelSelector
		for _, want := range desired.AggregationRule.ClusterRoleSelectors {
			found := false
			for _, h := range have {
				if equality.Semantic.DeepEqual(h, want) {
					found = true
					break
				}
			}
			if !found {
				missing = append(missing, *want.DeepCopy())
			}
		}
		if len(missing) > 0 {
			if out.AggregationRule == nil {
				out.AggregationRule = &rbacv1.AggregationRule{}
			}
			out.AggregationRule.ClusterRoleSelectors = append(out.AggregationRule.ClusterRoleSelectors, missing...)
			changed = true
		}
	}
	return out, actionFor(changed)
}

func reconcileSubjects(have, want []rbacv1.Subject) ([]rbacv1.Subject, bool) {
	changed := false
	for _, s := range want {
		if !containsSubject(have, s) {
			have = append(have, s)
			changed = true
		}
	}
	return have, changed
}

func containsSubject(list []rbacv1.Subject, s rbacv1.Subject) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func reconcileClusterRoleBinding(existing, desired *rbacv1.ClusterRoleBinding) (*rbacv1.ClusterRoleBinding, Action) {
	if existing.RoleRef != desired.RoleRef {
		return desired.DeepCopy(), ActionRecreate
	}
	out := existing.DeepCopy()
	changed := mergeMetadata(out, desired)
	var subjectsChanged bool
	out.Subjects, subjectsChanged = reconcileSubjects(out.Subjects, desired.Subjects)
	return out, actionFor(changed || subjectsChanged)
}

func reconcileRoleBinding(existing, desired *rbacv1.RoleBinding) (*rbacv1.RoleBinding, Action) {
	if existing.RoleRef != desired.RoleRef {
		return desired.DeepCopy(), ActionRecreate
	}
	out := existing.DeepCopy()
	changed := mergeMetadata(out, desired)
	var subjectsChanged bool
	out.Subjects, subjectsChanged = reconcileSubjects(out.Subjects, desired.Subjects)
	return out, actionFor(changed || subjectsChanged)
}

func actionFor(changed bool) Action {
	if changed {
		return ActionUpdate
	}
	return ActionNone
}
