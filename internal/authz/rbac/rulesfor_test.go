package rbac

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

func TestRulesFor(t *testing.T) {
	a := New()
	mustUpsert(t, a,
		cr("basic", pr(l("create"), l("authorization.k8s.io"), l("selfsubjectaccessreviews", "selfsubjectrulesreviews"))),
		cr("health", rbacv1.PolicyRule{Verbs: l("get"), NonResourceURLs: l("/healthz", "/healthz/*")}),
		cr("mixed", rbacv1.PolicyRule{Verbs: l("get"), APIGroups: l(""), Resources: l("configmaps"), ResourceNames: l("cfg")}),
		newRole("team", "deployer", pr(l("create", "update"), l("apps"), l("deployments"))),
		newRole("other", "deployer", pr(l("delete"), l("apps"), l("deployments"))),

		// Visited in name order, each once although alice matches twice.
		crb("z-basic", "basic", groupSubject("system:authenticated"), userSubject("alice")),
		crb("a-health", "health", userSubject("alice")),
		crb("m-missing", "nope", groupSubject("devs")),
		crb("not-alice", "mixed", userSubject("bob")),
		rb("team", "deployers", "Role", "deployer", groupSubject("devs")),
		rb("team", "cfg", "ClusterRole", "mixed", userSubject("alice")),
		rb("other", "deployers", "Role", "deployer", groupSubject("devs")),
	)

	t.Run("namespace", func(t *testing.T) {
		resourceRules, nonResourceRules, incomplete, err := a.RulesFor(context.Background(), alice, "team")
		wantResource := []authorizer.ResourceRuleInfo{
			&authorizer.DefaultResourceRuleInfo{Verbs: l("create"), APIGroups: l("authorization.k8s.io"), Resources: l("selfsubjectaccessreviews", "selfsubjectrulesreviews")},
			&authorizer.DefaultResourceRuleInfo{Verbs: l("get"), APIGroups: l(""), Resources: l("configmaps"), ResourceNames: l("cfg")},
			&authorizer.DefaultResourceRuleInfo{Verbs: l("create", "update"), APIGroups: l("apps"), Resources: l("deployments")},
		}
		wantNonResource := []authorizer.NonResourceRuleInfo{
			&authorizer.DefaultNonResourceRuleInfo{Verbs: l("get"), NonResourceURLs: l("/healthz", "/healthz/*")},
		}
		if diff := cmp.Diff(wantResource, resourceRules); diff != "" {
			t.Errorf("resource rules (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(wantNonResource, nonResourceRules); diff != "" {
			t.Errorf("non-resource rules (-want +got):\n%s", diff)
		}
		if incomplete {
			t.Error("incomplete")
		}
		if err == nil || err.Error() != `clusterrole.rbac.authorization.k8s.io "nope" not found` {
			t.Errorf("err = %v", err)
		}
	})

	t.Run("cluster-wide", func(t *testing.T) {
		resourceRules, nonResourceRules, _, _ := a.RulesFor(context.Background(), alice, "")
		if len(resourceRules) != 1 || len(nonResourceRules) != 1 {
			t.Errorf("got %d resource and %d non-resource rules, want 1 and 1", len(resourceRules), len(nonResourceRules))
		}
	})

	t.Run("nobody", func(t *testing.T) {
		resourceRules, nonResourceRules, incomplete, err := a.RulesFor(context.Background(), &user.DefaultInfo{Name: "erin"}, "team")
		if resourceRules != nil || nonResourceRules != nil || incomplete || err != nil {
			t.Errorf("got %v %v %v %v", resourceRules, nonResourceRules, incomplete, err)
		}
	})

	t.Run("rule with resources and URLs appears in both lists", func(t *testing.T) {
		b := New()
		both := rbacv1.PolicyRule{Verbs: l("get"), APIGroups: l(""), Resources: l("pods"), NonResourceURLs: l("/x")}
		mustUpsert(t, b, cr("both", both), crb("both", "both", userSubject("alice")))
		resourceRules, nonResourceRules, _, _ := b.RulesFor(context.Background(), alice, "")
		if len(resourceRules) != 1 || len(nonResourceRules) != 1 {
			t.Errorf("got %d and %d", len(resourceRules), len(nonResourceRules))
		}
	})
}

func TestPolicyRulesForAndRoleRefRules(t *testing.T) {
	a := New()
	mustUpsert(t, a,
		cr("reader", getPods),
		newRole("team", "writer", pr(l("create"), l(""), l("pods"))),
		crb("r", "reader", userSubject("alice")),
		rb("team", "w", "Role", "writer", userSubject("alice")),
		rb("team", "gone", "Role", "gone", userSubject("alice")),
	)
	rules, err := a.PolicyRulesFor(alice, "team")
	if diff := cmp.Diff([]rbacv1.PolicyRule{getPods, pr(l("create"), l(""), l("pods"))}, rules); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	// Worded as storage words it, for the escalation check.
	if err == nil || err.Error() != `roles.rbac.authorization.k8s.io "gone" not found` {
		t.Errorf("err = %v", err)
	}

	got, err := a.RoleRefRules(rbacv1.RoleRef{Kind: "Role", Name: "writer"}, "team")
	if err != nil || len(got) != 1 {
		t.Errorf("RoleRefRules(Role writer) = %v, %v", got, err)
	}
	if _, err := a.RoleRefRules(rbacv1.RoleRef{Kind: "Role", Name: "writer"}, "other"); err == nil || err.Error() != `roles.rbac.authorization.k8s.io "writer" not found` {
		t.Errorf("Role in another namespace: %v", err)
	}
	if _, err := a.RoleRefRules(rbacv1.RoleRef{Kind: "ClusterRole", Name: "x"}, ""); err == nil || err.Error() != `clusterroles.rbac.authorization.k8s.io "x" not found` {
		t.Errorf("missing ClusterRole: %v", err)
	}
	if _, err := a.RoleRefRules(rbacv1.RoleRef{Kind: "Thing", Name: "x"}, ""); err == nil || err.Error() != `unsupported role reference kind: "Thing"` {
		t.Errorf("unknown kind: %v", err)
	}
}
