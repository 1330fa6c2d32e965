package abac

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

func newTestAuthorizer(t *testing.T) *Authorizer {
	t.Helper()
	a, err := New("testdata/policy.jsonl")
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return a
}

func authenticated(name string, groups ...string) user.Info {
	return &user.DefaultInfo{Name: name, Groups: append(groups, user.AllAuthenticated)}
}

var anonymous = &user.DefaultInfo{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}}

// res is a resource request; path a non-resource one.
func res(u user.Info, verb, group, resource, subresource, namespace string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{User: u, Verb: verb, APIGroup: group, APIVersion: "v1", Resource: resource, Subresource: subresource, Namespace: namespace, Name: "x", ResourceRequest: true}
}

func path(u user.Info, verb, p string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{User: u, Verb: verb, Path: p}
}

// authorizeCase is a request and whether testdata/policy.jsonl allows it.
type authorizeCase struct {
	name  string
	attrs authorizer.AttributesRecord
	allow bool
}

// authorizeCases were checked against kube-apiserver v1.37.2 with
// --authorization-mode=ABAC and testdata/policy.jsonl, by
// SubjectAccessReviews of the same attributes.
var authorizeCases = []authorizeCase{
	// non-resource paths for everyone
	{name: "authenticated user reads any path", attrs: path(authenticated("zed"), "get", "/apis"), allow: true},
	{name: "authenticated user cannot post to a path", attrs: path(authenticated("zed"), "post", "/apis")},
	{name: "anonymous reads /healthz", attrs: path(anonymous, "get", "/healthz"), allow: true},
	{name: "anonymous cannot read /healthz/etcd", attrs: path(anonymous, "get", "/healthz/etcd")},
	{name: "anonymous cannot read /version", attrs: path(anonymous, "get", "/version")},
	{name: "anonymous cannot post to /healthz", attrs: path(anonymous, "post", "/healthz")},
	{name: "anonymous cannot read configmaps in public", attrs: res(anonymous, "get", "", "configmaps", "", "public")},

	// users
	{name: "admin creates anything anywhere", attrs: res(authenticated("admin"), "create", "apps", "deployments", "", "ns"), allow: true},
	{name: "admin deletes cluster-scoped objects", attrs: res(authenticated("admin"), "delete", "", "namespaces", "", ""), allow: true},
	{name: "admin's resource rule covers no path", attrs: path(&user.DefaultInfo{Name: "admin"}, "get", "/healthz")},
	{name: "scheduler reads pods", attrs: res(authenticated("scheduler"), "list", "", "pods", "", "ns"), allow: true},
	{name: "scheduler watches pods cluster-wide", attrs: res(authenticated("scheduler"), "watch", "", "pods", "", ""), allow: true},
	{name: "scheduler reads pod logs: subresources are not looked at", attrs: res(authenticated("scheduler"), "get", "", "pods", "log", "ns"), allow: true},
	{name: "scheduler cannot create pods/binding: the resource is pods", attrs: res(authenticated("scheduler"), "create", "", "pods", "binding", "ns")},
	{name: "scheduler creates bindings", attrs: res(authenticated("scheduler"), "create", "", "bindings", "", "ns"), allow: true},
	{name: "scheduler cannot delete pods: read-only", attrs: res(authenticated("scheduler"), "delete", "", "pods", "", "ns")},
	{name: "scheduler cannot read pods of another group: no apiGroup is the core group", attrs: res(authenticated("scheduler"), "get", "metrics.k8s.io", "pods", "", "ns")},
	{name: "scheduler cannot read services", attrs: res(authenticated("scheduler"), "get", "", "services", "", "ns")},
	{name: "alice deletes in projectCaribou", attrs: res(authenticated("alice"), "delete", "batch", "jobs", "", "projectCaribou"), allow: true},
	{name: "alice cannot read in another namespace", attrs: res(authenticated("alice"), "get", "", "pods", "", "projectcaribou")},
	{name: "alice cannot list namespaces", attrs: res(authenticated("alice"), "list", "", "namespaces", "", "")},
	{name: "bob watches in projectCaribou", attrs: res(authenticated("bob"), "watch", "", "pods", "", "projectCaribou"), allow: true},
	{name: "bob cannot patch: read-only", attrs: res(authenticated("bob"), "patch", "", "pods", "", "projectCaribou")},
	{name: "bob cannot deletecollection: read-only", attrs: res(authenticated("bob"), "deletecollection", "", "pods", "", "projectCaribou")},
	{name: "dave creates apps deployments", attrs: res(authenticated("dave"), "create", "apps", "deployments", "", "ns"), allow: true},
	{name: "dave cannot create extensions deployments", attrs: res(authenticated("dave"), "create", "extensions", "deployments", "", "ns")},

	// a group, cluster-scoped
	{name: "devs update nodes", attrs: res(&user.DefaultInfo{Name: "d", Groups: []string{"devs"}}, "update", "", "nodes", "", ""), allow: true},
	{name: "devs: a rule without namespace matches no namespaced request", attrs: res(&user.DefaultInfo{Name: "d", Groups: []string{"devs"}}, "update", "", "nodes", "", "ns")},
	{name: "devs: the rule's empty group is the core group", attrs: res(&user.DefaultInfo{Name: "d", Groups: []string{"devs"}}, "get", "x.io", "nodes", "", "")},

	// paths
	{name: "ops posts under /logs/", attrs: path(&user.DefaultInfo{Name: "o", Groups: []string{"ops"}}, "post", "/logs/kubelet/x"), allow: true},
	{name: "ops posts to /logs/ itself", attrs: path(&user.DefaultInfo{Name: "o", Groups: []string{"ops"}}, "post", "/logs/"), allow: true},
	{name: "ops cannot post to /logs", attrs: path(&user.DefaultInfo{Name: "o", Groups: []string{"ops"}}, "post", "/logs")},
	{name: "ops cannot post to /logsx", attrs: path(&user.DefaultInfo{Name: "o", Groups: []string{"ops"}}, "post", "/logsx/")},
	{name: "ops: a path rule matches no resource", attrs: res(&user.DefaultInfo{Name: "o", Groups: []string{"ops"}}, "get", "", "logs", "", "")},
	{name: "carol posts to /metrics", attrs: path(&user.DefaultInfo{Name: "carol"}, "post", "/metrics"), allow: true},
	{name: "carol cannot post below /metrics", attrs: path(&user.DefaultInfo{Name: "carol"}, "post", "/metrics/x")},

	// user and group together
	{name: "frank in eng reads secrets", attrs: res(authenticated("frank", "eng"), "create", "", "secrets", "", "ns"), allow: true},
	{name: "frank outside eng", attrs: res(authenticated("frank"), "create", "", "secrets", "", "ns")},
	{name: "someone else in eng", attrs: res(authenticated("gina", "eng"), "create", "", "secrets", "", "ns")},

	// wildcards as subjects
	{name: "user * is any authenticated user", attrs: res(authenticated("zed"), "get", "", "configmaps", "", "public"), allow: true},
	{name: "group * drops the user: anyone authenticated writes leases", attrs: res(authenticated("zed"), "update", "coordination.k8s.io", "leases", "", "kube-system"), allow: true},
	{name: "group * does not cover users outside system:authenticated", attrs: res(&user.DefaultInfo{Name: "erin"}, "update", "coordination.k8s.io", "leases", "", "kube-system")},
	{name: "a rule without subject matches nobody", attrs: res(&user.DefaultInfo{Name: ""}, "get", "", "pods", "", "ns")},

	// legacy lines
	{name: "legacy user does anything", attrs: res(&user.DefaultInfo{Name: "legacy"}, "delete", "rbac.authorization.k8s.io", "clusterroles", "", ""), allow: true},
	{name: "legacy user posts to any path", attrs: path(&user.DefaultInfo{Name: "legacy"}, "post", "/anything"), allow: true},
	{name: "legacy readers read anything", attrs: res(&user.DefaultInfo{Name: "r", Groups: []string{"legacy-readers"}}, "get", "apps", "deployments", "", "ns"), allow: true},
	{name: "legacy readers read any path", attrs: path(&user.DefaultInfo{Name: "r", Groups: []string{"legacy-readers"}}, "get", "/x"), allow: true},
	{name: "legacy readers cannot create", attrs: res(&user.DefaultInfo{Name: "r", Groups: []string{"legacy-readers"}}, "create", "", "pods", "", "ns")},
	{name: "grace does anything in ns1, any group", attrs: res(&user.DefaultInfo{Name: "grace"}, "delete", "apps", "deployments", "", "ns1"), allow: true},
	{name: "grace cannot in ns2", attrs: res(&user.DefaultInfo{Name: "grace"}, "delete", "", "pods", "", "ns2")},
	{name: "grace: a legacy namespace rule covers no path", attrs: path(&user.DefaultInfo{Name: "grace"}, "get", "/x")},
	{name: "heidi writes events of any group", attrs: res(&user.DefaultInfo{Name: "heidi"}, "create", "events.k8s.io", "events", "", "ns"), allow: true},
	{name: "heidi: legacy no namespace is every namespace, cluster scope too", attrs: res(&user.DefaultInfo{Name: "heidi"}, "create", "", "events", "", ""), allow: true},
	{name: "heidi cannot write pods", attrs: res(&user.DefaultInfo{Name: "heidi"}, "create", "", "pods", "", "ns")},
	{name: "legacy user * is any authenticated user", attrs: res(authenticated("zed"), "create", "", "pods", "", "shared"), allow: true},

	{name: "no user", attrs: res(nil, "get", "", "pods", "", "ns")},
}

func TestAuthorize(t *testing.T) {
	a := newTestAuthorizer(t)
	for _, tc := range authorizeCases {
		t.Run(tc.name, func(t *testing.T) {
			d, reason, err := a.Authorize(context.Background(), tc.attrs)
			if err != nil {
				t.Fatalf("Authorize error: %v", err)
			}
			want := result{authorizer.DecisionNoOpinion, "No policy matched."}
			if tc.allow {
				want = result{authorizer.DecisionAllow, ""}
			}
			if diff := cmp.Diff(want, result{d, reason}); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
			if cd := a.ConditionsAwareAuthorize(context.Background(), tc.attrs); cd.IsAllow() != tc.allow {
				t.Errorf("ConditionsAwareAuthorize allowed = %v, want %v", cd.IsAllow(), tc.allow)
			}
		})
	}
}

type result struct {
	Decision authorizer.Decision
	Reason   string
}
