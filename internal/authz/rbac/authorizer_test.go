package rbac

import (
	"context"
	"errors"
	"sync"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

var (
	getPods     = pr(l("get"), l(""), l("pods"))
	getSecrets  = pr(l("get"), l(""), l("secrets"))
	allOnAll    = pr(l("*"), l("*"), l("*"))
	alice       = &user.DefaultInfo{Name: "alice", Groups: []string{"devs", "system:authenticated"}}
	bob         = &user.DefaultInfo{Name: "bob", Groups: []string{"system:authenticated"}}
	builderSA   = &user.DefaultInfo{Name: "system:serviceaccount:team:builder", Groups: []string{"system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"}}
	nobodyGroup = &user.DefaultInfo{Name: "carol"}
)

func podsIn(u user.Info, verb, namespace string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{User: u, Verb: verb, Resource: "pods", Namespace: namespace, ResourceRequest: true, APIVersion: "v1"}
}

func TestAuthorizeSubjectsAndScopes(t *testing.T) {
	a := New()
	mustUpsert(t, a,
		cr("pod-reader", getPods),
		cr("admin-ish", allOnAll),
		newRole("team", "local-reader", getPods),
		newRole("other", "local-reader", getPods),

		crb("alice-reads", "pod-reader", userSubject("alice")),
		rb("team", "devs-read", "ClusterRole", "pod-reader", groupSubject("devs")),
		rb("team", "sa-local", "Role", "local-reader", rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "builder"}),
		rb("other", "sa-remote", "Role", "local-reader", serviceAccountSubject("team", "builder")),
		crb("sa-no-namespace", "admin-ish", rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: "builder"}),
		crb("unknown-kind", "admin-ish", rbacv1.Subject{Kind: "Robot", Name: "carol"}),
	)

	tests := []struct {
		name   string
		attrs  authorizer.AttributesRecord
		want   authorizer.Decision
		reason string
	}{
		{"cluster binding applies cluster-wide", podsIn(alice, "get", ""), authorizer.DecisionAllow,
			`RBAC: allowed by ClusterRoleBinding "alice-reads" of ClusterRole "pod-reader" to User "alice"`},
		{"cluster binding applies in every namespace", podsIn(alice, "get", "anywhere"), authorizer.DecisionAllow,
			`RBAC: allowed by ClusterRoleBinding "alice-reads" of ClusterRole "pod-reader" to User "alice"`},
		{"verb not granted", podsIn(alice, "delete", "team"), authorizer.DecisionNoOpinion, ""},
		{"role binding to a cluster role, in its namespace", podsIn(&user.DefaultInfo{Name: "dave", Groups: []string{"devs"}}, "get", "team"), authorizer.DecisionAllow,
			`RBAC: allowed by RoleBinding "devs-read/team" of ClusterRole "pod-reader" to Group "devs"`},
		{"role binding to a cluster role, other namespace", podsIn(&user.DefaultInfo{Name: "dave", Groups: []string{"devs"}}, "get", "other"), authorizer.DecisionNoOpinion, ""},
		{"role binding to a cluster role, cluster-wide request", podsIn(&user.DefaultInfo{Name: "dave", Groups: []string{"devs"}}, "get", ""), authorizer.DecisionNoOpinion, ""},
		{"service account without namespace means the binding's", podsIn(builderSA, "get", "team"), authorizer.DecisionAllow,
			`RBAC: allowed by RoleBinding "sa-local/team" of Role "local-reader" to ServiceAccount "builder/team"`},
		{"service account with namespace, binding elsewhere", podsIn(builderSA, "get", "other"), authorizer.DecisionAllow,
			`RBAC: allowed by RoleBinding "sa-remote/other" of Role "local-reader" to ServiceAccount "builder/team"`},
		{"service account in a cluster binding needs a namespace", podsIn(builderSA, "delete", "team"), authorizer.DecisionNoOpinion, ""},
		{"a user named like a service account is that service account", podsIn(&user.DefaultInfo{Name: "system:serviceaccount:team:builder"}, "get", "team"), authorizer.DecisionAllow,
			`RBAC: allowed by RoleBinding "sa-local/team" of Role "local-reader" to ServiceAccount "builder/team"`},
		{"other service account", podsIn(&user.DefaultInfo{Name: "system:serviceaccount:team:deployer"}, "get", "team"), authorizer.DecisionNoOpinion, ""},
		{"unknown subject kind matches nobody", podsIn(nobodyGroup, "get", ""), authorizer.DecisionNoOpinion, ""},
		{"group name is not a user name", podsIn(&user.DefaultInfo{Name: "devs"}, "get", "team"), authorizer.DecisionNoOpinion, ""},
		{"user name is not a group name", podsIn(&user.DefaultInfo{Name: "x", Groups: []string{"alice"}}, "get", ""), authorizer.DecisionNoOpinion, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, err := a.Authorize(context.Background(), tt.attrs)
			if err != nil {
				t.Fatal(err)
			}
			if d != tt.want || reason != tt.reason {
				t.Errorf("got %v %q, want %v %q", d, reason, tt.want, tt.reason)
			}
		})
	}
}

func TestAuthorizeReasonNamesFirstMatchingSubject(t *testing.T) {
	a := New()
	mustUpsert(t, a,
		cr("pod-reader", getPods),
		crb("b", "pod-reader", userSubject("zed"), groupSubject("devs"), userSubject("alice")),
	)
	_, reason, _ := a.Authorize(context.Background(), podsIn(alice, "get", ""))
	if want := `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "pod-reader" to Group "devs"`; reason != want {
		t.Errorf("reason %q, want %q", reason, want)
	}
}

func TestAuthorizeMissingRoles(t *testing.T) {
	a := New()
	mustUpsert(t, a,
		crb("dangling", "missing", userSubject("alice")),
		rb("team", "dangling-role", "Role", "gone", groupSubject("devs")),
		rb("team", "dangling-kind", "Widget", "w", userSubject("alice")),
		crb("names-a-role", "x", userSubject("bob")),
	)
	// ClusterRoleBindings cannot refer to Roles: there is no cluster-wide one.
	mustUpsert(t, a, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "crb-to-role"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "local"},
		Subjects:   []rbacv1.Subject{userSubject("carol")},
	}, newRole("team", "local", getPods))

	tests := []struct {
		name   string
		attrs  authorizer.AttributesRecord
		want   authorizer.Decision
		reason string
	}{
		{"missing cluster role", podsIn(alice, "get", ""), authorizer.DecisionNoOpinion,
			`RBAC: clusterrole.rbac.authorization.k8s.io "missing" not found`},
		{"missing roles in both scopes", podsIn(alice, "get", "team"), authorizer.DecisionNoOpinion,
			`RBAC: [clusterrole.rbac.authorization.k8s.io "missing" not found, unsupported role reference kind: "Widget", role.rbac.authorization.k8s.io "gone" not found]`},
		{"unrelated user sees no errors", podsIn(&user.DefaultInfo{Name: "erin"}, "get", "team"), authorizer.DecisionNoOpinion, ""},
		{"cluster binding to a role", podsIn(&user.DefaultInfo{Name: "carol"}, "get", ""), authorizer.DecisionNoOpinion,
			`RBAC: role.rbac.authorization.k8s.io "local" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, reason, err := a.Authorize(context.Background(), tt.attrs)
			if err != nil {
				t.Fatal(err)
			}
			if d != tt.want || reason != tt.reason {
				t.Errorf("got %v %q, want %v %q", d, reason, tt.want, tt.reason)
			}
		})
	}

	t.Run("another binding still allows", func(t *testing.T) {
		mustUpsert(t, a, cr("pod-reader", getPods), crb("works", "pod-reader", userSubject("alice")))
		d, reason, _ := a.Authorize(context.Background(), podsIn(alice, "get", "team"))
		if d != authorizer.DecisionAllow || reason != `RBAC: allowed by ClusterRoleBinding "works" of ClusterRole "pod-reader" to User "alice"` {
			t.Errorf("got %v %q", d, reason)
		}
	})
	t.Run("the role appears later", func(t *testing.T) {
		mustUpsert(t, a, cr("missing", getSecrets))
		d, _, _ := a.Authorize(context.Background(), authorizer.AttributesRecord{User: alice, Verb: "get", Resource: "secrets", ResourceRequest: true})
		if d != authorizer.DecisionAllow {
			t.Errorf("got %v", d)
		}
	})
}

func TestAuthorizeNonResource(t *testing.T) {
	a := New()
	mustUpsert(t, a,
		cr("health", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz", "/healthz/*"}}),
		crb("health", "health", groupSubject("system:unauthenticated")),
		// Role bindings never grant non-resource URLs: the request has no namespace.
		rb("ns", "metrics", "ClusterRole", "metrics", userSubject("anon")),
		cr("metrics", rbacv1.PolicyRule{Verbs: []string{"get"}, NonResourceURLs: []string{"/metrics"}}),
	)
	anon := &user.DefaultInfo{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}
	for path, want := range map[string]authorizer.Decision{
		"/healthz":      authorizer.DecisionAllow,
		"/healthz/etcd": authorizer.DecisionAllow,
		"/healthzz":     authorizer.DecisionNoOpinion,
		"/metrics":      authorizer.DecisionNoOpinion,
	} {
		d, _, _ := a.Authorize(context.Background(), authorizer.AttributesRecord{User: anon, Verb: "get", Path: path})
		if d != want {
			t.Errorf("%s: got %v, want %v", path, d, want)
		}
	}
	d, reason, _ := a.Authorize(context.Background(), authorizer.AttributesRecord{User: anon, Verb: "get", Path: "/healthz"})
	if d != authorizer.DecisionAllow || reason != `RBAC: allowed by ClusterRoleBinding "health" of ClusterRole "health" to Group "system:unauthenticated"` {
		t.Errorf("got %v %q", d, reason)
	}
}

func TestAuthorizeUpdatesAndDeletes(t *testing.T) {
	ctx := context.Background()
	a := New()
	allowed := func(u user.Info, ns string) bool {
		t.Helper()
		d, _, _ := a.Authorize(ctx, podsIn(u, "get", ns))
		return d == authorizer.DecisionAllow
	}

	mustUpsert(t, a, cr("pod-reader", getPods), crb("b", "pod-reader", userSubject("alice"), userSubject("bob")))
	if !allowed(alice, "") || !allowed(bob, "") {
		t.Fatal("binding not applied")
	}

	// Replacing a binding drops the subjects it no longer names.
	mustUpsert(t, a, crb("b", "pod-reader", userSubject("bob")))
	if allowed(alice, "") || !allowed(bob, "") {
		t.Fatal("binding not replaced")
	}

	// Replacing a role changes what its bindings grant.
	mustUpsert(t, a, cr("pod-reader", getSecrets))
	if allowed(bob, "") {
		t.Fatal("role not replaced")
	}
	mustUpsert(t, a, cr("pod-reader", getPods))

	// The caller's object may change after Upsert.
	role := cr("mutable", pr(l("get"), l(""), l("pods")))
	mustUpsert(t, a, role, crb("m", "mutable", userSubject("carol")))
	role.Rules[0].Verbs[0] = "delete"
	if !allowed(nobodyGroup, "") {
		t.Fatal("Upsert kept a reference to the caller's rules")
	}

	if err := a.Delete(crb("b", "")); err != nil {
		t.Fatal(err)
	}
	if allowed(bob, "") {
		t.Fatal("binding not deleted")
	}
	if err := a.Delete(crb("b", "")); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}

	mustUpsert(t, a, rb("ns", "r", "Role", "reader", userSubject("alice")), newRole("ns", "reader", getPods))
	if !allowed(alice, "ns") {
		t.Fatal("role binding not applied")
	}
	if err := a.Delete(newRole("ns", "reader")); err != nil {
		t.Fatal(err)
	}
	if allowed(alice, "ns") {
		t.Fatal("role not deleted")
	}
	mustUpsert(t, a, newRole("ns", "reader", getPods))
	if err := a.Delete(rb("ns", "r", "Role", "reader")); err != nil {
		t.Fatal(err)
	}
	if allowed(alice, "ns") {
		t.Fatal("role binding not deleted")
	}
	if err := a.Delete(cr("pod-reader")); err != nil {
		t.Fatal(err)
	}
}

func TestReplace(t *testing.T) {
	a := New()
	mustUpsert(t, a, cr("pod-reader", getPods), crb("old", "pod-reader", userSubject("alice")))
	err := a.Replace([]runtime.Object{cr("pod-reader", getPods), crb("new", "pod-reader", userSubject("bob"))})
	if err != nil {
		t.Fatal(err)
	}
	if d, _, _ := a.Authorize(context.Background(), podsIn(alice, "get", "")); d == authorizer.DecisionAllow {
		t.Error("old binding survived Replace")
	}
	if d, _, _ := a.Authorize(context.Background(), podsIn(bob, "get", "")); d != authorizer.DecisionAllow {
		t.Error("new binding missing after Replace")
	}
	// A bad object leaves everything as it was.
	if err := a.Replace([]runtime.Object{&rbacv1.ClusterRoleBinding{}, &metav1.Status{}}); !errors.Is(err, ErrUnsupportedObject) {
		t.Fatalf("got %v, want ErrUnsupportedObject", err)
	}
	if d, _, _ := a.Authorize(context.Background(), podsIn(bob, "get", "")); d != authorizer.DecisionAllow {
		t.Error("failed Replace changed the state")
	}
}

func TestUnsupportedObjects(t *testing.T) {
	a := New()
	for _, obj := range []runtime.Object{
		nil,
		&metav1.Status{},
		(*rbacv1.ClusterRole)(nil),
		(*rbacv1.RoleBinding)(nil),
		rb("", "no-namespace", "Role", "r"),
		newRole("", "no-namespace"),
	} {
		if err := a.Upsert(obj); !errors.Is(err, ErrUnsupportedObject) {
			t.Errorf("Upsert(%T): got %v", obj, err)
		}
		if err := a.Delete(obj); !errors.Is(err, ErrUnsupportedObject) {
			t.Errorf("Delete(%T): got %v", obj, err)
		}
	}
}

func TestAuthorizeWithoutUser(t *testing.T) {
	a := New()
	mustUpsert(t, a, cr("all", allOnAll), crb("all", "all", userSubject("")))
	d, _, err := a.Authorize(context.Background(), authorizer.AttributesRecord{Verb: "get", Resource: "pods", ResourceRequest: true})
	if d != authorizer.DecisionNoOpinion || err != nil {
		t.Errorf("got %v %v", d, err)
	}
}

func TestConditionsAware(t *testing.T) {
	a := New()
	mustUpsert(t, a, cr("pod-reader", getPods), crb("b", "pod-reader", userSubject("alice")))
	if d := a.ConditionsAwareAuthorize(context.Background(), podsIn(alice, "get", "")); !d.IsAllow() {
		t.Errorf("got %v", d)
	}
	if d := a.ConditionsAwareAuthorize(context.Background(), podsIn(bob, "get", "")); !d.IsNoOpinion() {
		t.Errorf("got %v", d)
	}
	if _, _, err := a.EvaluateConditions(context.Background(), authorizer.ConditionsAwareDecision{}, nil); !errors.Is(err, authorizer.ErrorConditionEvaluationNotSupported) {
		t.Errorf("got %v", err)
	}
}

// TestConcurrentUpdates runs decisions while two writers change
// bindings. Decisions that no binding being changed can affect never
// change; once the writers are done, every decision equals that of an
// authorizer given the final objects one by one. Run with -race too.
func TestConcurrentUpdates(t *testing.T) {
	fixed := []runtime.Object{cr("pod-reader", getPods), cr("secret-reader", getSecrets), rb("ns", "fixed", "ClusterRole", "secret-reader", userSubject("bob"))}
	a := New()
	mustUpsert(t, a, fixed...)
	erin := &user.DefaultInfo{Name: "erin", Groups: []string{"ops"}}
	secretsIn := func(u user.Info, ns string) authorizer.AttributesRecord {
		r := podsIn(u, "get", ns)
		r.Resource = "secrets"
		return r
	}

	// The bindings of writer w: a cluster binding for alice or erin and a
	// namespaced one for devs or ops. Writer 0 ends with them bound,
	// writer 1 with its cluster binding deleted.
	bindings := func(w int) (*rbacv1.ClusterRoleBinding, *rbacv1.RoleBinding) {
		if w == 0 {
			return crb("b0", "pod-reader", userSubject("alice")), rb("ns", "r0", "ClusterRole", "pod-reader", groupSubject("devs"))
		}
		return crb("b1", "pod-reader", userSubject("erin")), rb("other", "r1", "ClusterRole", "pod-reader", groupSubject("ops"))
	}
	const writes = 500
	deleted := func(w, i int) bool { return i%2 == w }

	stop := make(chan struct{})
	var readers, writers sync.WaitGroup
	for range 2 {
		readers.Go(func() {
			for {
				if d, _, err := a.Authorize(context.Background(), secretsIn(bob, "ns")); d != authorizer.DecisionAllow || err != nil {
					t.Errorf("bob's untouched binding: %v %v, want allowed", d, err)
					return
				}
				if d, _, _ := a.Authorize(context.Background(), podsIn(bob, "get", "ns")); d == authorizer.DecisionAllow {
					t.Error("bob, whom no binding being changed names, may get pods")
					return
				}
				_, _, _ = a.Authorize(context.Background(), podsIn(alice, "get", "ns"))
				_, _, _, _ = a.RulesFor(context.Background(), alice, "ns")
				select {
				case <-stop:
					return
				default:
				}
			}
		})
	}
	for w := range 2 {
		writers.Go(func() {
			c, r := bindings(w)
			for i := range writes {
				if err := a.Upsert(c); err != nil {
					t.Error(err)
				}
				if err := a.Upsert(r); err != nil {
					t.Error(err)
				}
				if deleted(w, i) {
					if err := a.Delete(c); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	writers.Wait()
	close(stop)
	readers.Wait()

	want := New()
	mustUpsert(t, want, fixed...)
	for w := range 2 {
		c, r := bindings(w)
		mustUpsert(t, want, r)
		if !deleted(w, writes-1) {
			mustUpsert(t, want, c)
		}
	}
	for _, u := range []user.Info{alice, bob, erin, nobodyGroup} {
		for _, ns := range []string{"", "ns", "other"} {
			for _, attrs := range []authorizer.AttributesRecord{podsIn(u, "get", ns), secretsIn(u, ns)} {
				got, _, _ := a.Authorize(context.Background(), attrs)
				exp, _, _ := want.Authorize(context.Background(), attrs)
				if got != exp {
					t.Errorf("%s get %s in %q: %v after concurrent writes, %v after the same writes in order", u.GetName(), attrs.Resource, ns, got, exp)
				}
			}
			got, _, _, _ := a.RulesFor(context.Background(), u, ns)
			exp, _, _, _ := want.RulesFor(context.Background(), u, ns)
			if len(got) != len(exp) {
				t.Errorf("%s in %q: %d rules after concurrent writes, %d after the same writes in order", u.GetName(), ns, len(got), len(exp))
			}
		}
	}
}
