package rbac

import (
	"context"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// res describes a resource request; the user is filled in by the test.
func res(verb, group, resource, subresource, name string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{Verb: verb, APIGroup: group, Resource: resource, Subresource: subresource, Name: name, Namespace: "ns", ResourceRequest: true}
}

func url(verb, path string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{Verb: verb, Path: path}
}

func TestRuleMatching(t *testing.T) {
	podsGet := rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}
	tests := []struct {
		name string
		rule rbacv1.PolicyRule
		req  authorizer.AttributesRecord
		want bool
	}{
		// Verbs.
		{"verb matches", podsGet, res("get", "", "pods", "", ""), true},
		{"verb differs", podsGet, res("list", "", "pods", "", ""), false},
		{"verb star", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{""}, Resources: []string{"pods"}}, res("deletecollection", "", "pods", "", ""), true},
		{"verb is case sensitive", podsGet, res("GET", "", "pods", "", ""), false},
		{"no verbs match nothing", rbacv1.PolicyRule{APIGroups: []string{"*"}, Resources: []string{"*"}}, res("get", "", "pods", "", ""), false},

		// API groups.
		{"core group", podsGet, res("get", "", "pods", "", ""), true},
		{"other group", podsGet, res("get", "apps", "pods", "", ""), false},
		{"group star", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"pods"}}, res("get", "metrics.k8s.io", "pods", "", ""), true},
		{"second group", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"extensions", "apps"}, Resources: []string{"deployments"}}, res("get", "apps", "deployments", "", ""), true},
		{"no groups match nothing", rbacv1.PolicyRule{Verbs: []string{"get"}, Resources: []string{"pods"}}, res("get", "", "pods", "", ""), false},

		// Resources and subresources.
		{"resource does not cover its subresources", podsGet, res("get", "", "pods", "log", ""), false},
		{"subresource exact", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}}, res("get", "", "pods", "log", ""), true},
		{"subresource rule does not cover the resource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}}, res("get", "", "pods", "", ""), false},
		{"subresource rule does not cover other subresources", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}}, res("get", "", "pods", "exec", ""), false},
		{"subresource of another resource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}}, res("get", "", "nodes", "log", ""), false},
		{"star slash subresource", rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}, res("update", "apps", "deployments", "scale", ""), true},
		{"star slash subresource, other resource", rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}, res("update", "", "replicationcontrollers", "scale", ""), true},
		{"star slash subresource does not cover the resource", rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}, res("update", "apps", "deployments", "", ""), false},
		{"star slash subresource, other subresource", rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}, res("update", "apps", "deployments", "status", ""), false},
		{"star slash subresource, longer subresource", rbacv1.PolicyRule{Verbs: []string{"update"}, APIGroups: []string{"*"}, Resources: []string{"*/scale"}}, res("update", "apps", "deployments", "rescale", ""), false},
		{"star slash alone is no wildcard", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"*/"}}, res("get", "", "pods", "log", ""), false},
		{"resource slash star is not a wildcard", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/*"}}, res("get", "", "pods", "log", ""), false},
		{"resource slash star does not cover the resource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/*"}}, res("get", "", "pods", "", ""), false},
		{"resource star covers resources", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*"}}, res("get", "", "secrets", "", ""), true},
		{"resource star covers subresources", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"*"}}, res("get", "", "pods", "log", ""), true},
		{"second resource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods", "pods/exec", "services"}}, res("get", "", "services", "", ""), true},
		{"resource prefix is not a match", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pod"}}, res("get", "", "pods", "", ""), false},
		{"combined form must split at the slash", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"podsXlog"}}, res("get", "", "pods", "log", ""), false},

		// Resource names.
		{"name listed", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a", "b"}}, res("get", "", "configmaps", "", "b"), true},
		{"name not listed", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}, res("get", "", "configmaps", "", "c"), false},
		{"list carries no name", rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}, res("list", "", "configmaps", "", ""), false},
		{"list narrowed to a name by field selector", rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}, res("list", "", "configmaps", "", "a"), true},
		{"create carries no name", rbacv1.PolicyRule{Verbs: []string{"create"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}, res("create", "", "configmaps", "", ""), false},
		{"deletecollection carries no name", rbacv1.PolicyRule{Verbs: []string{"deletecollection"}, APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{"a"}}, res("deletecollection", "", "configmaps", "", ""), false},
		{"no names cover every name", podsGet, res("get", "", "pods", "", "anything"), true},
		{"names with subresource", rbacv1.PolicyRule{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods/log"}, ResourceNames: []string{"web"}}, res("get", "", "pods", "log", "web"), true},

		// Non-resource URLs.
		{"url exact", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}, url("get", "/healthz"), true},
		{"url exact, other path", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}, url("get", "/healthz/etcd"), false},
		{"url exact, trailing slash differs", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/version"}}, url("get", "/version/"), false},
		{"url prefix", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz/*"}}, url("get", "/healthz/etcd"), true},
		{"url prefix needs the slash", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz/*"}}, url("get", "/healthz"), false},
		{"url prefix without slash", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/api*"}}, url("get", "/apis/apps"), true},
		{"url double star", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/logs**"}}, url("get", "/logs/kubelet"), true},
		{"url star", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"*"}}, url("get", "/anything/at/all"), true},
		{"url verb differs", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}}, url("post", "/metrics"), false},
		{"url verb star", rbacv1.PolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"/metrics"}}, url("put", "/metrics"), true},
		{"url star in the middle is literal", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/a/*/b"}}, url("get", "/a/x/b"), false},

		// Resource rules and URL rules do not cross.
		{"resource rule, url request", rbacv1.PolicyRule{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}}, url("get", "/healthz"), false},
		{"url rule, resource request", rbacv1.PolicyRule{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}, res("get", "", "pods", "", ""), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RulesAllow(tt.req, tt.rule); got != tt.want {
				t.Errorf("RulesAllow(%+v, %+v) = %v, want %v", tt.req, tt.rule, got, tt.want)
			}
			// The same rule through a binding decides the same way.
			a := New()
			mustUpsert(t, a, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "r"}, Rules: []rbacv1.PolicyRule{tt.rule}})
			mustUpsert(t, a, crb("b", "r", userSubject("bob")))
			req := tt.req
			req.User = &user.DefaultInfo{Name: "bob"}
			d, _, err := a.Authorize(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if want := wantDecision(tt.want); d != want {
				t.Errorf("Authorize = %v, want %v", d, want)
			}
		})
	}
}

func wantDecision(allowed bool) authorizer.Decision {
	if allowed {
		return authorizer.DecisionAllow
	}
	return authorizer.DecisionNoOpinion
}

func TestRulesAllowSeveralRules(t *testing.T) {
	rules := []rbacv1.PolicyRule{
		{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}},
		{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}},
	}
	if !RulesAllow(url("get", "/metrics"), rules...) {
		t.Error("second rule not used")
	}
	if RulesAllow(res("get", "", "secrets", "", ""), rules...) {
		t.Error("secrets allowed")
	}
	if RulesAllow(res("get", "", "pods", "", "")) {
		t.Error("no rules allowed something")
	}
}
