package clusterroleaggregation

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/controllers/controllertest"
)

var clusterroles = schema.GroupVersionResource{Group: rbacv1.GroupName, Version: "v1", Resource: "clusterroles"}

func TestAggregation(t *testing.T) {
	env := controllertest.New(t)
	ctx := context.Background()
	create := func(cr *rbacv1.ClusterRole) {
		t.Helper()
		if _, err := env.API.Create(ctx, cr, "test"); err != nil {
			t.Fatal(err)
		}
	}
	rule := func(res string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{res}, Verbs: []string{"get"}}
	}
	create(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "monitoring"},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"aggregate-to-monitoring": "true"}}}}})
	create(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "pods", Labels: map[string]string{"aggregate-to-monitoring": "true"}},
		Rules: []rbacv1.PolicyRule{rule("pods")}})
	create(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "unrelated"}, Rules: []rbacv1.PolicyRule{rule("secrets")}})
	controllertest.Run(t, New(env.Objects, env.API, slog.New(slog.DiscardHandler)).Run)

	rulesAre := func(want ...rbacv1.PolicyRule) func() (bool, string) {
		return func() (bool, string) {
			obj, err := env.Objects.Get(ctx, clusterroles, "", "monitoring")
			if err != nil {
				return false, err.Error()
			}
			got := obj.(*rbacv1.ClusterRole).Rules
			if len(got) == 0 && len(want) == 0 {
				return true, ""
			}
			return equality.Semantic.DeepEqual(got, want), fmt.Sprintf("rules %v, want %v", got, want)
		}
	}
	controllertest.Eventually(t, rulesAre(rule("pods")))

	// A new role that the selector picks joins; one that goes leaves.
	create(&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "nodes", Labels: map[string]string{"aggregate-to-monitoring": "true"}},
		Rules: []rbacv1.PolicyRule{rule("nodes")}})
	controllertest.Eventually(t, rulesAre(rule("nodes"), rule("pods")))
	if err := env.API.Remove(ctx, clusterroles, "", "pods"); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	controllertest.Eventually(t, rulesAre(rule("nodes")))
}
