package rbac

import (
	"context"
	"errors"
	"net/http"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/admission"
)

func rbacResource(resource string) schema.GroupVersionResource {
	return rbacv1.SchemeGroupVersion.WithResource(resource)
}

func write(op admission.Operation, u user.Info, resource, namespace string, obj, old runtime.Object) *admission.Attributes {
	name := ""
	if m, ok := obj.(metav1.Object); ok {
		name = m.GetName()
	}
	return &admission.Attributes{
		Resource:  rbacResource(resource),
		Operation: op,
		UserInfo:  u,
		Namespace: namespace,
		Name:      name,
		Object:    obj,
		OldObject: old,
	}
}

// escalationFixture: bob may read pods in "team" and read configmaps
// everywhere; erin may escalate roles and bind the "view-ish" role; frank
// may escalate only the role named "mine"; gary holds everything.
func escalationFixture(t *testing.T) (*Authorizer, admission.Validator) {
	t.Helper()
	a := New()
	mustUpsert(t, a,
		cr("pod-reader", getPods),
		cr("cm-reader", pr(l("get", "list", "watch"), l(""), l("configmaps"))),
		cr("secret-reader", pr(l("get", "list", "watch"), l(""), l("secrets"))),
		cr("escalator", pr(l("escalate"), l("rbac.authorization.k8s.io"), l("roles", "clusterroles"))),
		cr("binder", rbacv1.PolicyRule{Verbs: l("bind"), APIGroups: l("rbac.authorization.k8s.io"), Resources: l("clusterroles"), ResourceNames: l("secret-reader")}),
		cr("escalate-mine", rbacv1.PolicyRule{Verbs: l("escalate"), APIGroups: l("rbac.authorization.k8s.io"), Resources: l("roles"), ResourceNames: l("mine")}),
		cr("cluster-admin", allOnAll, rbacv1.PolicyRule{Verbs: l("*"), NonResourceURLs: l("*")}),
		cr("metrics", rbacv1.PolicyRule{Verbs: l("get"), NonResourceURLs: l("/metrics")}),

		rb("team", "bob-pods", "ClusterRole", "pod-reader", userSubject("bob")),
		crb("bob-cm", "cm-reader", userSubject("bob")),
		crb("erin-escalates", "escalator", userSubject("erin")),
		rb("team", "erin-binds", "ClusterRole", "binder", userSubject("erin")),
		rb("team", "frank-escalates", "ClusterRole", "escalate-mine", userSubject("frank")),
		crb("gary-admin", "cluster-admin", userSubject("gary")),
		crb("hank-dangling", "gone", userSubject("hank")),
	)
	return a, NewEscalationCheck(a, a)
}

func TestEscalationCheck(t *testing.T) {
	_, check := escalationFixture(t)
	erin := &user.DefaultInfo{Name: "erin"}
	frank := &user.DefaultInfo{Name: "frank"}
	gary := &user.DefaultInfo{Name: "gary"}
	hank := &user.DefaultInfo{Name: "hank"}
	masters := &user.DefaultInfo{Name: "loopback", Groups: []string{user.SystemPrivilegedGroup}}

	aggregatedRole := cr("agg")
	aggregatedRole.AggregationRule = &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{"x": "true"}}}}
	withOwner := newRole("team", "r", getPods)
	withOwner.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "1"}}
	grantsSecrets := newRole("team", "r", getSecrets)
	grantsSecretsOwned := grantsSecrets.DeepCopy()
	grantsSecretsOwned.Finalizers = []string{"example.com/keep"}

	tests := []struct {
		name string
		a    *admission.Attributes
		// want is the error message; "" means allowed.
		want string
		code int32
	}{
		// Roles.
		{"role within the user's rules", write(admission.Create, bob, "roles", "team", newRole("team", "r", getPods, pr(l("list"), l(""), l("configmaps"))), nil), "", 0},
		{"role beyond the user's rules", write(admission.Create, bob, "roles", "team",
			newRole("team", "r", pr(l("get", "list"), l(""), l("pods")), getSecrets), nil),
			`roles.rbac.authorization.k8s.io "r" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods"], Verbs:["list"]}
{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`, http.StatusForbidden},
		{"missing verbs are compacted", write(admission.Create, bob, "roles", "team",
			newRole("team", "r", pr(l("get", "list", "watch"), l(""), l("secrets", "pods/log"))), nil),
			`roles.rbac.authorization.k8s.io "r" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods/log"], Verbs:["get" "list" "watch"]}
{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "watch"]}`, http.StatusForbidden},
		{"rules of another namespace do not count", write(admission.Create, bob, "roles", "elsewhere", newRole("elsewhere", "r", getPods), nil),
			`roles.rbac.authorization.k8s.io "r" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`, http.StatusForbidden},
		{"update beyond the user's rules", write(admission.Update, bob, "roles", "team", grantsSecrets, newRole("team", "r", getPods)),
			`roles.rbac.authorization.k8s.io "r" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`, http.StatusForbidden},
		{"update of GC fields only", write(admission.Update, bob, "roles", "team", grantsSecretsOwned, grantsSecrets), "", 0},
		{"ownerReferences added, rules unchanged", write(admission.Update, bob, "roles", "team", withOwner, newRole("team", "r", getPods)), "", 0},
		{"escalate allows anything", write(admission.Create, erin, "roles", "team", newRole("team", "r", allOnAll), nil), "", 0},
		{"escalate on one name allows updating it", write(admission.Update, frank, "roles", "team", newRole("team", "mine", allOnAll), newRole("team", "mine")), "", 0},
		{"escalate on one name does not allow creating it", write(admission.Create, frank, "roles", "team", newRole("team", "mine", getPods), nil),
			`roles.rbac.authorization.k8s.io "mine" is forbidden: user "frank" (groups=[]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`, http.StatusForbidden},
		{"system:masters may do anything", write(admission.Create, masters, "roles", "team", newRole("team", "r", allOnAll), nil), "", 0},
		{"resolution errors are reported", write(admission.Create, hank, "roles", "team", newRole("team", "r", getPods), nil),
			`roles.rbac.authorization.k8s.io "r" is forbidden: user "hank" (groups=[]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods"], Verbs:["get"]}; resolution errors: [clusterroles.rbac.authorization.k8s.io "gone" not found]`, http.StatusForbidden},
		{"no user", write(admission.Create, nil, "roles", "team", newRole("team", "r", getPods), nil),
			`roles.rbac.authorization.k8s.io "r" is forbidden: no user on context`, http.StatusForbidden},

		// ClusterRoles.
		{"cluster role within cluster-wide rules", write(admission.Create, bob, "clusterroles", "", cr("c", pr(l("get"), l(""), l("configmaps"))), nil), "", 0},
		{"cluster role needs cluster-wide rules", write(admission.Create, bob, "clusterroles", "", cr("c", getPods), nil),
			`clusterroles.rbac.authorization.k8s.io "c" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`, http.StatusForbidden},
		{"non-resource urls", write(admission.Create, bob, "clusterroles", "", cr("c", rbacv1.PolicyRule{Verbs: l("get"), NonResourceURLs: l("/metrics", "/healthz")}), nil),
			`clusterroles.rbac.authorization.k8s.io "c" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{NonResourceURLs:["/healthz"], Verbs:["get"]}
{NonResourceURLs:["/metrics"], Verbs:["get"]}`, http.StatusForbidden},
		{"aggregation rule needs cluster-admin", write(admission.Create, bob, "clusterroles", "", aggregatedRole, nil),
			`clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule`, http.StatusForbidden},
		{"removing an aggregation rule needs cluster-admin", write(admission.Update, bob, "clusterroles", "", cr("agg"), aggregatedRole),
			`clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule`, http.StatusForbidden},
		{"cluster-admin may aggregate", write(admission.Create, gary, "clusterroles", "", aggregatedRole, nil), "", 0},
		{"escalate allows aggregation too", write(admission.Create, erin, "clusterroles", "", aggregatedRole, nil), "", 0},

		// RoleBindings.
		{"binding a role the user holds", write(admission.Create, bob, "rolebindings", "team", rb("team", "b", "ClusterRole", "pod-reader", userSubject("x")), nil), "", 0},
		{"binding a role the user does not hold", write(admission.Create, bob, "rolebindings", "team", rb("team", "b", "ClusterRole", "secret-reader", userSubject("x")), nil),
			`rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "watch"]}`, http.StatusForbidden},
		{"bind permission on that role", write(admission.Create, erin, "rolebindings", "team", rb("team", "b", "ClusterRole", "secret-reader", userSubject("x")), nil), "", 0},
		{"bind permission is per namespace", write(admission.Create, erin, "rolebindings", "other", rb("other", "b", "ClusterRole", "secret-reader", userSubject("x")), nil),
			`rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "erin" (groups=[]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "watch"]}`, http.StatusForbidden},
		{"bind permission is per role", write(admission.Create, erin, "rolebindings", "team", rb("team", "b", "ClusterRole", "cluster-admin", userSubject("x")), nil),
			`rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "erin" (groups=[]) is attempting to grant RBAC permissions not currently held:
{APIGroups:["*"], Resources:["*"], Verbs:["*"]}
{NonResourceURLs:["*"], Verbs:["*"]}`, http.StatusForbidden},
		{"binding a missing role", write(admission.Create, bob, "rolebindings", "team", rb("team", "b", "ClusterRole", "nope", userSubject("x")), nil),
			`clusterroles.rbac.authorization.k8s.io "nope" not found`, http.StatusNotFound},
		{"binding a missing namespaced role", write(admission.Create, bob, "rolebindings", "team", rb("team", "b", "Role", "nope", userSubject("x")), nil),
			`roles.rbac.authorization.k8s.io "nope" not found`, http.StatusNotFound},
		{"role binding without namespace", write(admission.Create, bob, "rolebindings", "", rb("team", "b", "ClusterRole", "pod-reader"), nil),
			`namespace is required`, http.StatusBadRequest},
		{"update of a role binding", write(admission.Update, bob, "rolebindings", "team",
			rb("team", "b", "ClusterRole", "secret-reader", userSubject("y")), rb("team", "b", "ClusterRole", "secret-reader", userSubject("x"))),
			`rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "watch"]}`, http.StatusForbidden},

		// ClusterRoleBindings.
		{"cluster binding of a role held cluster-wide", write(admission.Create, bob, "clusterrolebindings", "", crb("b", "cm-reader", userSubject("x")), nil), "", 0},
		{"cluster binding of a role held in a namespace only", write(admission.Create, bob, "clusterrolebindings", "", crb("b", "pod-reader", userSubject("x")), nil),
			`clusterrolebindings.rbac.authorization.k8s.io "b" is forbidden: user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`, http.StatusForbidden},
		{"namespaced bind permission does not bind cluster-wide", write(admission.Create, erin, "clusterrolebindings", "", crb("b", "secret-reader", userSubject("x")), nil),
			`clusterrolebindings.rbac.authorization.k8s.io "b" is forbidden: user "erin" (groups=[]) is attempting to grant RBAC permissions not currently held:
{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "watch"]}`, http.StatusForbidden},
		{"cluster-admin binds anything", write(admission.Create, gary, "clusterrolebindings", "", crb("b", "cluster-admin", userSubject("x")), nil), "", 0},

		// Out of scope.
		{"delete", write(admission.Delete, bob, "roles", "team", nil, newRole("team", "r", allOnAll)), "", 0},
		{"other resources", write(admission.Create, bob, "configmaps", "team", newRole("team", "r", allOnAll), nil), "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := check.Validate(context.Background(), tt.a)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("allowed, want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n%s\nwant\n%s", err.Error(), tt.want)
			}
			var status apierrors.APIStatus
			if !errors.As(err, &status) || status.Status().Code != tt.code {
				t.Errorf("status %v, want code %d", status, tt.code)
			}
		})
	}
}

func TestEscalationCheckOtherGroupsAndSubresources(t *testing.T) {
	_, check := escalationFixture(t)
	for _, a := range []*admission.Attributes{
		{Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "roles"}, Operation: admission.Create, UserInfo: bob, Object: newRole("team", "r", allOnAll)},
		{Resource: rbacResource("roles"), Subresource: "status", Operation: admission.Update, UserInfo: bob, Object: newRole("team", "r", allOnAll)},
		{Resource: rbacResource("roles"), Operation: admission.Connect, UserInfo: bob},
	} {
		if err := check.Validate(context.Background(), a); err != nil {
			t.Errorf("%+v: %v", a.Resource, err)
		}
	}
}

func TestEscalationCheckFailsClosedOnUnknownObjects(t *testing.T) {
	_, check := escalationFixture(t)
	err := check.Validate(context.Background(), write(admission.Create, bob, "roles", "team", &metav1.Status{}, nil))
	if !apierrors.IsInternalError(err) {
		t.Fatalf("got %v, want an internal error", err)
	}
}
