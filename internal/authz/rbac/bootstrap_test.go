package rbac

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestBootstrapGolden keeps the default policy reviewable: every change to
// it shows up as a diff of testdata/bootstrap-policy.yaml (regenerate with
// go test -run TestBootstrapGolden -update).
func TestBootstrapGolden(t *testing.T) {
	got, err := yaml.Marshal(Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "bootstrap-policy.yaml")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("bootstrap policy differs from %s (-want +got):\n%s", path, diff)
	}
}

func TestBootstrapIsConsistent(t *testing.T) {
	p := Bootstrap()
	clusterRoles := map[string]bool{}
	for _, r := range p.ClusterRoles {
		if clusterRoles[r.Name] {
			t.Errorf("duplicate ClusterRole %q", r.Name)
		}
		clusterRoles[r.Name] = true
	}
	roles := map[nsName]bool{}
	for _, r := range p.Roles {
		roles[nsName{r.Namespace, r.Name}] = true
	}
	seen := map[string]bool{}
	for _, b := range p.ClusterRoleBindings {
		if seen[b.Name] {
			t.Errorf("duplicate ClusterRoleBinding %q", b.Name)
		}
		seen[b.Name] = true
		if b.RoleRef.Kind != "ClusterRole" || !clusterRoles[b.RoleRef.Name] {
			t.Errorf("ClusterRoleBinding %q refers to missing %v", b.Name, b.RoleRef)
		}
	}
	for _, b := range p.RoleBindings {
		if !roles[nsName{b.Namespace, b.RoleRef.Name}] {
			t.Errorf("RoleBinding %s/%s refers to missing %v", b.Namespace, b.Name, b.RoleRef)
		}
	}
	for _, obj := range p.Objects() {
		m := obj.(interface {
			GetName() string
			GetLabels() map[string]string
			GetAnnotations() map[string]string
		})
		if m.GetLabels()[bootstrapLabel] != bootstrapLabelValue || m.GetAnnotations()[rbacv1.AutoUpdateAnnotationKey] != "true" {
			t.Errorf("%s lacks the default label or annotation", m.GetName())
		}
	}
	// Every call returns objects of its own.
	q := Bootstrap()
	i := slices.IndexFunc(q.ClusterRoles, func(r rbacv1.ClusterRole) bool { return r.Name == "system:basic-user" })
	q.ClusterRoles[i].Rules[0].Verbs[0] = "changed"
	if Bootstrap().ClusterRoles[i].Rules[0].Verbs[0] == "changed" {
		t.Error("Bootstrap shares memory between calls")
	}
}

// defaultCluster is an Authorizer holding the default policy, with the
// aggregated roles filled in as the aggregation controller would.
func defaultCluster(t testing.TB) *Authorizer {
	t.Helper()
	p := Bootstrap()
	byName := map[string]*rbacv1.ClusterRole{}
	var all []*rbacv1.ClusterRole
	for i := range p.ClusterRoles {
		byName[p.ClusterRoles[i].Name] = &p.ClusterRoles[i]
		all = append(all, &p.ClusterRoles[i])
	}
	// view feeds edit feeds admin.
	for _, name := range []string{"view", "edit", "admin"} {
		rules, err := AggregatedRules(byName[name], all)
		if err != nil {
			t.Fatal(err)
		}
		byName[name].Rules = rules
	}
	a := New()
	if err := a.Replace(p.Objects()); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestBootstrapDecisions(t *testing.T) {
	a := defaultCluster(t)
	anonymous := &user.DefaultInfo{Name: user.Anonymous, Groups: []string{user.AllUnauthenticated}}
	authenticated := &user.DefaultInfo{Name: "jane", Groups: []string{user.AllAuthenticated}}
	scheduler := &user.DefaultInfo{Name: user.KubeScheduler, Groups: []string{user.AllAuthenticated}}
	kcm := &user.DefaultInfo{Name: user.KubeControllerManager, Groups: []string{user.AllAuthenticated}}
	proxy := &user.DefaultInfo{Name: user.KubeProxy, Groups: []string{user.AllAuthenticated}}
	gc := &user.DefaultInfo{Name: "system:serviceaccount:kube-system:generic-garbage-collector", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", user.AllAuthenticated}}
	workload := &user.DefaultInfo{Name: "system:serviceaccount:app:default", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:app", user.AllAuthenticated}}
	monitor := &user.DefaultInfo{Name: "prometheus", Groups: []string{user.MonitoringGroup, user.AllAuthenticated}}
	masters := &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}}

	get := func(u user.Info, path string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: u, Verb: "get", Path: path}
	}
	do := func(u user.Info, verb, group, resource, subresource, namespace, name string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: u, Verb: verb, APIGroup: group, Resource: resource, Subresource: subresource, Namespace: namespace, Name: name, ResourceRequest: true}
	}
	tests := []struct {
		name   string
		attrs  authorizer.AttributesRecord
		want   bool
		reason string
	}{
		{"anonymous health", get(anonymous, "/healthz"), true,
			`RBAC: allowed by ClusterRoleBinding "system:public-info-viewer" of ClusterRole "system:public-info-viewer" to Group "system:unauthenticated"`},
		{"anonymous version", get(anonymous, "/version"), true, ""},
		{"anonymous discovery", get(anonymous, "/apis"), false, ""},
		{"anonymous pods", do(anonymous, "list", "", "pods", "", "default", ""), false, ""},
		{"user discovery", get(authenticated, "/apis/apps/v1"), true,
			`RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"`},
		{"user openapi", get(authenticated, "/openapi/v3"), true, ""},
		{"user metrics", get(authenticated, "/metrics"), false, ""},
		{"user self review", do(authenticated, "create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", ""), true, ""},
		{"user self rules review", do(authenticated, "create", "authorization.k8s.io", "selfsubjectrulesreviews", "", "", ""), true, ""},
		{"user whoami", do(authenticated, "create", "authentication.k8s.io", "selfsubjectreviews", "", "", ""), true, ""},
		{"user pods", do(authenticated, "list", "", "pods", "", "default", ""), false, ""},
		{"scheduler binds pods", do(scheduler, "create", "", "pods", "binding", "default", "web"), true,
			`RBAC: allowed by ClusterRoleBinding "system:kube-scheduler" of ClusterRole "system:kube-scheduler" to User "system:kube-scheduler"`},
		{"scheduler updates volumes", do(scheduler, "update", "", "persistentvolumes", "", "", "pv"), true,
			`RBAC: allowed by ClusterRoleBinding "system:volume-scheduler" of ClusterRole "system:volume-scheduler" to User "system:kube-scheduler"`},
		{"scheduler reads secrets", do(scheduler, "get", "", "secrets", "", "default", "s"), false, ""},
		{"scheduler leader lease", do(scheduler, "update", "coordination.k8s.io", "leases", "", "kube-system", "kube-scheduler"), true, ""},
		{"controller manager informers", do(kcm, "watch", "apps", "deployments", "", "", ""), true, ""},
		{"controller manager other lease, kube-system", do(kcm, "update", "coordination.k8s.io", "leases", "", "kube-system", "other"), true,
			`RBAC: allowed by RoleBinding "system::leader-locking-kube-controller-manager/kube-system" of Role "system::leader-locking-kube-controller-manager" to User "system:kube-controller-manager"`},
		{"controller manager other lease, elsewhere", do(kcm, "update", "coordination.k8s.io", "leases", "", "default", "other"), false, ""},
		{"kube-proxy endpoint slices", do(proxy, "watch", "discovery.k8s.io", "endpointslices", "", "", ""), true, ""},
		{"garbage collector", do(gc, "delete", "apps", "replicasets", "", "default", "rs"), true,
			`RBAC: allowed by ClusterRoleBinding "system:controller:generic-garbage-collector" of ClusterRole "system:controller:generic-garbage-collector" to ServiceAccount "generic-garbage-collector/kube-system"`},
		{"workload issuer discovery", get(workload, "/openid/v1/jwks"), true, ""},
		{"workload pods", do(workload, "list", "", "pods", "", "app", ""), false, ""},
		{"monitoring metrics", get(monitor, "/metrics"), true,
			`RBAC: allowed by ClusterRoleBinding "system:monitoring" of ClusterRole "system:monitoring" to Group "system:monitoring"`},
		{"monitoring readyz checks", get(monitor, "/readyz/etcd"), true, ""},
		{"masters", do(masters, "delete", "", "nodes", "", "", "n1"), true,
			`RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"`},
		{"system:node has no subjects", do(&user.DefaultInfo{Name: "system:node:n1", Groups: []string{user.NodesGroup}}, "get", "", "nodes", "", "", "n1"), false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, _ := a.Authorize(context.Background(), tt.attrs)
			if (d == authorizer.DecisionAllow) != tt.want {
				t.Fatalf("got %v %q, want allowed=%v", d, reason, tt.want)
			}
			if tt.reason != "" && reason != tt.reason {
				t.Errorf("reason %q, want %q", reason, tt.reason)
			}
		})
	}
}

// TestBootstrapUserFacingRoles binds admin, edit and view in a namespace.
func TestBootstrapUserFacingRoles(t *testing.T) {
	a := defaultCluster(t)
	for _, name := range []string{"admin", "edit", "view"} {
		mustUpsert(t, a, rb("app", name+"s", "ClusterRole", name, userSubject(name+"-user")))
	}
	type check struct {
		verb, group, resource, subresource string
	}
	tests := map[string]map[check]bool{
		"view-user": {
			{"get", "", "pods", ""}: true, {"list", "apps", "deployments", ""}: true, {"get", "", "pods", "log"}: true,
			{"get", "", "secrets", ""}: false, {"create", "", "pods", ""}: false, {"create", "", "pods", "exec"}: false,
			{"list", "resource.k8s.io", "resourceclaims", ""}: true,
		},
		"edit-user": {
			{"get", "", "pods", ""}: true, {"create", "apps", "deployments", ""}: true, {"get", "", "secrets", ""}: true,
			{"create", "", "pods", "exec"}: true, {"update", "apps", "deployments", "scale"}: true,
			{"create", "rbac.authorization.k8s.io", "rolebindings", ""}: false, {"update", "", "resourcequotas", ""}: false,
			{"impersonate", "", "serviceaccounts", ""}: true,
		},
		"admin-user": {
			{"create", "rbac.authorization.k8s.io", "rolebindings", ""}: true, {"create", "authorization.k8s.io", "localsubjectaccessreviews", ""}: true,
			{"delete", "", "pods", ""}: true, {"update", "", "resourcequotas", ""}: false, {"delete", "", "namespaces", ""}: false,
		},
	}
	for userName, checks := range tests {
		u := &user.DefaultInfo{Name: userName, Groups: []string{user.AllAuthenticated}}
		for c, want := range checks {
			attrs := authorizer.AttributesRecord{User: u, Verb: c.verb, APIGroup: c.group, Resource: c.resource, Subresource: c.subresource, Namespace: "app", ResourceRequest: true}
			d, reason, _ := a.Authorize(context.Background(), attrs)
			if (d == authorizer.DecisionAllow) != want {
				t.Errorf("%s %s %s %s/%s: got %v %q, want allowed=%v", userName, c.verb, c.group, c.resource, c.subresource, d, reason, want)
			}
			// Nothing outside the namespace.
			attrs.Namespace = "other"
			if d, _, _ := a.Authorize(context.Background(), attrs); d == authorizer.DecisionAllow && c.resource != "selfsubjectaccessreviews" {
				t.Errorf("%s %s %s in another namespace allowed", userName, c.verb, c.resource)
			}
		}
	}
}
