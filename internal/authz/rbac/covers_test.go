package rbac

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
)

func TestCovers(t *testing.T) {
	url := func(verbs []string, urls ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{Verbs: verbs, NonResourceURLs: urls}
	}
	named := func(r rbacv1.PolicyRule, names ...string) rbacv1.PolicyRule {
		r.ResourceNames = names
		return r
	}
	tests := []struct {
		name    string
		owner   []rbacv1.PolicyRule
		servant []rbacv1.PolicyRule
		missing []rbacv1.PolicyRule
	}{
		{"nothing asked", nil, nil, nil},
		{"exact", []rbacv1.PolicyRule{getPods}, []rbacv1.PolicyRule{getPods}, nil},
		{"split across owner rules",
			[]rbacv1.PolicyRule{getPods, pr(l("list"), l(""), l("pods"))},
			[]rbacv1.PolicyRule{pr(l("get", "list"), l(""), l("pods"))}, nil},
		{"star covers everything", []rbacv1.PolicyRule{allOnAll},
			[]rbacv1.PolicyRule{pr(l("escalate"), l("rbac.authorization.k8s.io"), l("roles", "pods/exec"))}, nil},
		{"missing verb, group and resource",
			[]rbacv1.PolicyRule{getPods},
			[]rbacv1.PolicyRule{pr(l("get", "list"), l("", "apps"), l("pods"))},
			[]rbacv1.PolicyRule{pr(l("list"), l(""), l("pods")), pr(l("get"), l("apps"), l("pods")), pr(l("list"), l("apps"), l("pods"))}},
		{"resource does not cover subresource",
			[]rbacv1.PolicyRule{getPods},
			[]rbacv1.PolicyRule{pr(l("get"), l(""), l("pods/log"))},
			[]rbacv1.PolicyRule{pr(l("get"), l(""), l("pods/log"))}},
		{"star slash covers subresource",
			[]rbacv1.PolicyRule{pr(l("get"), l(""), l("*/log"))},
			[]rbacv1.PolicyRule{pr(l("get"), l(""), l("pods/log", "nodes/log"))}, nil},
		{"star slash does not cover star slash of another",
			[]rbacv1.PolicyRule{pr(l("get"), l(""), l("*/log"))},
			[]rbacv1.PolicyRule{pr(l("get"), l(""), l("pods/exec"))},
			[]rbacv1.PolicyRule{pr(l("get"), l(""), l("pods/exec"))}},
		{"unrestricted owner covers names",
			[]rbacv1.PolicyRule{getPods},
			[]rbacv1.PolicyRule{named(getPods, "a", "b")}, nil},
		{"named owner covers its names only",
			[]rbacv1.PolicyRule{named(getPods, "a")},
			[]rbacv1.PolicyRule{named(getPods, "a", "b")},
			[]rbacv1.PolicyRule{named(getPods, "b")}},
		{"named owner does not cover all names",
			[]rbacv1.PolicyRule{named(getPods, "a")},
			[]rbacv1.PolicyRule{getPods},
			[]rbacv1.PolicyRule{getPods}},
		{"url exact and prefix",
			[]rbacv1.PolicyRule{url(l("get"), "/healthz", "/logs/*")},
			[]rbacv1.PolicyRule{url(l("get"), "/healthz", "/logs/kubelet", "/logs/*")}, nil},
		{"url not covered",
			[]rbacv1.PolicyRule{url(l("get"), "/healthz")},
			[]rbacv1.PolicyRule{url(l("get", "post"), "/healthz", "/metrics")},
			[]rbacv1.PolicyRule{url(l("post"), "/healthz"), url(l("get"), "/metrics"), url(l("post"), "/metrics")}},
		{"url star", []rbacv1.PolicyRule{url(l("*"), "*")}, []rbacv1.PolicyRule{url(l("get"), "/anything")}, nil},
		{"resource rules do not cover urls",
			[]rbacv1.PolicyRule{allOnAll},
			[]rbacv1.PolicyRule{url(l("get"), "/metrics")},
			[]rbacv1.PolicyRule{url(l("get"), "/metrics")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, missing := covers(tt.owner, tt.servant)
			if ok != (len(tt.missing) == 0) {
				t.Errorf("covers = %v", ok)
			}
			if diff := cmp.Diff(tt.missing, missing); diff != "" {
				t.Errorf("missing (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompact(t *testing.T) {
	in := []rbacv1.PolicyRule{
		pr(l("get"), l(""), l("pods")),
		pr(l("list"), l(""), l("pods")),
		{Verbs: l("get"), APIGroups: l(""), Resources: l("configmaps"), ResourceNames: l("a")},
		{Verbs: l("update"), APIGroups: l(""), Resources: l("configmaps"), ResourceNames: l("a")},
		{Verbs: l("get"), APIGroups: l(""), Resources: l("configmaps"), ResourceNames: l("b")},
		{Verbs: l("get"), NonResourceURLs: l("/metrics")},
		pr(l("watch"), l(""), l("pods")),
	}
	var got []string
	for _, r := range compactRules(in) {
		got = append(got, compactString(&r))
	}
	want := []string{
		`{APIGroups:[""], Resources:["pods"], Verbs:["get" "list" "watch"]}`,
		`{APIGroups:[""], Resources:["configmaps"], ResourceNames:["a"], Verbs:["get" "update"]}`,
		`{APIGroups:[""], Resources:["configmaps"], ResourceNames:["b"], Verbs:["get"]}`,
		`{NonResourceURLs:["/metrics"], Verbs:["get"]}`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The input is not changed.
	if len(in[0].Verbs) != 1 {
		t.Errorf("input changed: %v", in[0])
	}
}
