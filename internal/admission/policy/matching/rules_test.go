package matching

import (
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

func attrs(op admission.Operation, group, version, resource, sub, ns, name string) *admission.Attributes {
	return &admission.Attributes{
		Operation: op, Resource: schema.GroupVersionResource{Group: group, Version: version, Resource: resource},
		Subresource: sub, Namespace: ns, Name: name,
	}
}

func rule(ops []string, groups, versions, resources []string, scope string, names ...string) admissionregistrationv1.NamedRuleWithOperations {
	r := admissionregistrationv1.NamedRuleWithOperations{ResourceNames: names}
	for _, op := range ops {
		r.Operations = append(r.Operations, admissionregistrationv1.OperationType(op))
	}
	r.APIGroups, r.APIVersions, r.Resources = groups, versions, resources
	if scope != "" {
		s := admissionregistrationv1.ScopeType(scope)
		r.Scope = &s
	}
	return r
}

func TestRuleMatches(t *testing.T) {
	all := []string{"*"}
	core := []string{""}
	v1 := []string{"v1"}
	createPod := attrs(admission.Create, "", "v1", "pods", "", "default", "p")
	podStatus := attrs(admission.Update, "", "v1", "pods", "status", "default", "p")
	podExec := attrs(admission.Connect, "", "v1", "pods", "exec", "default", "p")
	deployment := attrs(admission.Delete, "apps", "v1", "deployments", "", "default", "d")
	scale := attrs(admission.Update, "apps", "v1", "deployments", "scale", "default", "d")
	node := attrs(admission.Create, "", "v1", "nodes", "", "", "n")
	namespace := attrs(admission.Update, "", "v1", "namespaces", "", "", "ns")
	namespaceWithName := attrs(admission.Update, "", "v1", "namespaces", "", "ns", "ns")

	tests := []struct {
		name string
		rule admissionregistrationv1.NamedRuleWithOperations
		a    *admission.Attributes
		want bool
	}{
		{"exact", rule([]string{"CREATE"}, core, v1, []string{"pods"}, ""), createPod, true},
		{"other operation", rule([]string{"UPDATE"}, core, v1, []string{"pods"}, ""), createPod, false},
		{"operation wildcard", rule(all, core, v1, []string{"pods"}, ""), createPod, true},
		{"several operations", rule([]string{"DELETE", "CREATE"}, core, v1, []string{"pods"}, ""), createPod, true},
		{"no operations", rule(nil, core, v1, []string{"pods"}, ""), createPod, false},
		{"connect", rule([]string{"CONNECT"}, core, v1, []string{"pods/exec"}, ""), podExec, true},
		{"other group", rule(all, []string{"apps"}, v1, []string{"pods"}, ""), createPod, false},
		{"group wildcard", rule(all, all, v1, []string{"deployments"}, ""), deployment, true},
		{"other version", rule(all, core, []string{"v2"}, []string{"pods"}, ""), createPod, false},
		{"version wildcard", rule(all, core, all, []string{"pods"}, ""), createPod, true},
		{"resource wildcard", rule(all, all, all, []string{"*"}, ""), deployment, true},
		{"resource wildcard skips subresources", rule(all, all, all, []string{"*"}, ""), podStatus, false},
		{"main resource skips subresources", rule(all, core, v1, []string{"pods"}, ""), podStatus, false},
		{"all subresources of all", rule(all, all, all, []string{"*/*"}, ""), podStatus, true},
		{"*/* matches main resources", rule(all, all, all, []string{"*/*"}, ""), createPod, true},
		{"pods/*", rule(all, core, v1, []string{"pods/*"}, ""), podExec, true},
		{"pods/* matches pods", rule(all, core, v1, []string{"pods/*"}, ""), createPod, true},
		{"pods/* not deployments", rule(all, all, v1, []string{"pods/*"}, ""), scale, false},
		{"*/status", rule(all, core, v1, []string{"*/status"}, ""), podStatus, true},
		{"*/status not exec", rule(all, core, v1, []string{"*/status"}, ""), podExec, false},
		{"*/status not main", rule(all, core, v1, []string{"*/status"}, ""), createPod, false},
		{"exact subresource", rule(all, all, v1, []string{"deployments/scale"}, ""), scale, true},
		{"resource name", rule(all, core, v1, []string{"pods"}, "", "p"), createPod, true},
		{"other resource name", rule(all, core, v1, []string{"pods"}, "", "q", "r"), createPod, false},
		{"name on create without name", rule(all, core, v1, []string{"pods"}, "", "p"), attrs(admission.Create, "", "v1", "pods", "", "default", ""), false},
		{"scope *", rule(all, core, v1, []string{"nodes"}, "*"), node, true},
		{"namespaced scope", rule(all, core, v1, []string{"pods"}, "Namespaced"), createPod, true},
		{"namespaced scope not cluster", rule(all, core, v1, []string{"nodes"}, "Namespaced"), node, false},
		{"cluster scope", rule(all, core, v1, []string{"nodes"}, "Cluster"), node, true},
		{"cluster scope not namespaced", rule(all, core, v1, []string{"pods"}, "Cluster"), createPod, false},
		{"namespaces are cluster scoped", rule(all, core, v1, []string{"namespaces"}, "Cluster"), namespace, true},
		{"namespaces with own namespace are cluster scoped", rule(all, core, v1, []string{"namespaces"}, "Cluster"), namespaceWithName, true},
		{"namespaces are not namespaced", rule(all, core, v1, []string{"namespaces"}, "Namespaced"), namespaceWithName, false},
		{"unknown scope", rule(all, core, v1, []string{"pods"}, "Galaxy"), createPod, false},
		{"empty scope", rule(all, core, v1, []string{"pods"}, ""), createPod, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := CompileRule(&tc.rule)
			if got := r.Matches(tc.a); got != tc.want {
				t.Fatalf("Matches = %v, want %v", got, tc.want)
			}
		})
	}
	t.Run("pointer to empty scope matches nothing", func(t *testing.T) {
		r := rule(all, core, v1, []string{"pods"}, "")
		empty := admissionregistrationv1.ScopeType("")
		r.Scope = &empty
		c := CompileRule(&r)
		if c.Matches(createPod) {
			t.Fatal("matched")
		}
	})
}
