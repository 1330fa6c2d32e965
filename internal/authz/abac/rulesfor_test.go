package abac

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// TestRulesFor: the namespaced cases agree with kube-apiserver v1.37.2's
// SelfSubjectRulesReviews (impersonated users, who are also in
// system:authenticated; the review refuses an empty namespace, so the
// cluster-scope cases follow its resolver's code).
func TestRulesFor(t *testing.T) {
	a := newTestAuthorizer(t)
	readOnly := []string{"get", "list", "watch"}
	all := []string{"*"}
	resourceRule := func(verbs []string, group, resource string) authorizer.ResourceRuleInfo {
		return &authorizer.DefaultResourceRuleInfo{Verbs: verbs, APIGroups: []string{group}, Resources: []string{resource}}
	}
	pathRule := func(verbs []string, p string) authorizer.NonResourceRuleInfo {
		return &authorizer.DefaultNonResourceRuleInfo{Verbs: verbs, NonResourceURLs: []string{p}}
	}
	for _, tc := range []struct {
		name         string
		user         user.Info
		namespace    string
		wantResource []authorizer.ResourceRuleInfo
		wantPaths    []authorizer.NonResourceRuleInfo
	}{
		{
			name:      "anonymous",
			user:      anonymous,
			wantPaths: []authorizer.NonResourceRuleInfo{pathRule(readOnly, "/healthz")},
		},
		{
			name:      "scheduler without groups, in a namespace",
			user:      &user.DefaultInfo{Name: "scheduler"},
			namespace: "ns",
			wantResource: []authorizer.ResourceRuleInfo{
				resourceRule(readOnly, "", "pods"),
				resourceRule(all, "", "bindings"),
			},
		},
		{
			name:      "alice in her namespace",
			user:      &user.DefaultInfo{Name: "alice"},
			namespace: "projectCaribou",
			wantResource: []authorizer.ResourceRuleInfo{
				resourceRule(all, "*", "*"),
			},
		},
		{
			name:      "alice elsewhere",
			user:      &user.DefaultInfo{Name: "alice"},
			namespace: "other",
		},
		{
			name:         "devs at cluster scope: the rule without namespace",
			user:         &user.DefaultInfo{Name: "d", Groups: []string{"devs"}},
			wantResource: []authorizer.ResourceRuleInfo{resourceRule(all, "", "nodes")},
		},
		{
			name:      "devs in a namespace",
			user:      &user.DefaultInfo{Name: "d", Groups: []string{"devs"}},
			namespace: "ns",
		},
		{
			name:      "ops: a path rule, whatever the namespace",
			user:      &user.DefaultInfo{Name: "o", Groups: []string{"ops"}},
			namespace: "ns",
		},
		{
			name:      "ops at cluster scope",
			user:      &user.DefaultInfo{Name: "o", Groups: []string{"ops"}},
			wantPaths: []authorizer.NonResourceRuleInfo{pathRule(all, "/logs/*")},
		},
		{
			// The path rule has no namespace, so it is listed only at
			// cluster scope, as kube-apiserver lists it.
			name:      "authenticated user in public",
			user:      authenticated("zed"),
			namespace: "public",
			wantResource: []authorizer.ResourceRuleInfo{
				resourceRule(readOnly, "", "configmaps"),
				resourceRule(all, "coordination.k8s.io", "leases"),
			},
		},
		{
			name: "authenticated user at cluster scope",
			user: authenticated("zed"),
			wantResource: []authorizer.ResourceRuleInfo{
				resourceRule(all, "coordination.k8s.io", "leases"),
			},
			wantPaths: []authorizer.NonResourceRuleInfo{pathRule(readOnly, "*")},
		},
		{
			name:      "authenticated user in shared: the legacy line",
			user:      authenticated("zed"),
			namespace: "shared",
			wantResource: []authorizer.ResourceRuleInfo{
				resourceRule(all, "coordination.k8s.io", "leases"),
				resourceRule(all, "*", "pods"),
			},
		},
		{
			name:         "legacy user: every resource and path",
			user:         &user.DefaultInfo{Name: "legacy"},
			namespace:    "ns",
			wantResource: []authorizer.ResourceRuleInfo{resourceRule(all, "*", "*")},
			wantPaths:    []authorizer.NonResourceRuleInfo{pathRule(all, "*")},
		},
		{
			name:         "legacy readers",
			user:         &user.DefaultInfo{Name: "r", Groups: []string{"legacy-readers"}},
			wantResource: []authorizer.ResourceRuleInfo{resourceRule(readOnly, "*", "*")},
			wantPaths:    []authorizer.NonResourceRuleInfo{pathRule(readOnly, "*")},
		},
		{
			name:         "grace in ns1: legacy namespace rule, no path",
			user:         &user.DefaultInfo{Name: "grace"},
			namespace:    "ns1",
			wantResource: []authorizer.ResourceRuleInfo{resourceRule(all, "*", "*")},
		},
		{
			name: "no user",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gotResource, gotPaths, incomplete, err := a.RulesFor(context.Background(), tc.user, tc.namespace)
			if err != nil || incomplete {
				t.Fatalf("RulesFor: incomplete %v, error %v; want complete and no error", incomplete, err)
			}
			if diff := cmp.Diff(tc.wantResource, gotResource); diff != "" {
				t.Errorf("resource rules (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantPaths, gotPaths); diff != "" {
				t.Errorf("non-resource rules (-want +got):\n%s", diff)
			}
		})
	}
}
