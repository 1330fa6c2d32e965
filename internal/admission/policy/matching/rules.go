package matching

import (
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

// Rule is a compiled NamedRuleWithOperations.
type Rule struct {
	operations []string
	groups     []string
	versions   []string
	resources  []resourcePattern
	scope      admissionregistrationv1.ScopeType
	names      []string
}

// resourcePattern is one entry of rule.resources split at the first "/":
// "pods" matches the main resource only, "pods/*" every subresource of
// pods, "*/status" the status of every resource, "*/*" everything.
type resourcePattern struct{ resource, subresource string }

// CompileRule compiles one rule.
func CompileRule(r *admissionregistrationv1.NamedRuleWithOperations) Rule {
	out := Rule{
		groups:   r.APIGroups,
		versions: r.APIVersions,
		names:    r.ResourceNames,
		scope:    admissionregistrationv1.AllScopes,
	}
	if r.Scope != nil {
		out.scope = *r.Scope
	}
	for _, op := range r.Operations {
		out.operations = append(out.operations, string(op))
	}
	for _, res := range r.Resources {
		p := resourcePattern{resource: res}
		if i := strings.IndexByte(res, '/'); i >= 0 {
			p.resource, p.subresource = res[:i], res[i+1:]
		}
		out.resources = append(out.resources, p)
	}
	return out
}

func compileRules(rules []admissionregistrationv1.NamedRuleWithOperations) []Rule {
	if len(rules) == 0 {
		return nil
	}
	out := make([]Rule, len(rules))
	for i := range rules {
		out[i] = CompileRule(&rules[i])
	}
	return out
}

// namespaceResource is the one resource that is cluster-scoped yet counts
// as a namespace for scope checks.
var namespaceResource = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// Matches reports whether the rule, including its resource names, matches
// the request.
func (r *Rule) Matches(a *admission.Attributes) bool {
	if !r.matchesAs(a, a.Resource) {
		return false
	}
	if len(r.names) == 0 {
		return true
	}
	for _, n := range r.names {
		if n == a.Name {
			return true
		}
	}
	return false
}

// matchesAs reports whether the rule, leaving its resource names aside,
// matches the request as if it were for resource.
func (r *Rule) matchesAs(a *admission.Attributes, resource schema.GroupVersionResource) bool {
	return r.matchesScope(a) && containsOrWildcard(r.operations, string(a.Operation)) &&
		containsOrWildcard(r.groups, resource.Group) && containsOrWildcard(r.versions, resource.Version) &&
		r.matchesResource(resource.Resource, a.Subresource)
}

func (r *Rule) matchesScope(a *admission.Attributes) bool {
	switch r.scope {
	case admissionregistrationv1.AllScopes:
		return true
	case admissionregistrationv1.NamespacedScope:
		return a.Resource != namespaceResource && a.Namespace != ""
	case admissionregistrationv1.ClusterScope:
		return a.Resource == namespaceResource || a.Namespace == ""
	default:
		return false
	}
}

func (r *Rule) matchesResource(resource, subresource string) bool {
	for _, p := range r.resources {
		if (p.resource == "*" || p.resource == resource) && (p.subresource == "*" || p.subresource == subresource) {
			return true
		}
	}
	return false
}

func containsOrWildcard(items []string, s string) bool {
	for _, it := range items {
		if it == "*" || it == s {
			return true
		}
	}
	return false
}

// Match is the resource and kind a request matched as: its own, or under
// matchPolicy Equivalent the equivalent resource a rule names.
type Match struct {
	Resource schema.GroupVersionResource
	Kind     schema.GroupVersionKind
}

// Own is the match of a request as its own resource and kind.
func Own(a *admission.Attributes) Match { return Match{Resource: a.Resource, Kind: a.Kind} }

// matchRules finds the first rule that matches the request as it is;
// failing that, under Equivalent, the first rule (in order) that matches
// one of the request's equivalent resources (in their order), resource
// names not considered, as kube-apiserver's matcher does.
func matchRules(rules []Rule, equivalent bool, a *admission.Attributes) (Match, bool) {
	for i := range rules {
		if rules[i].Matches(a) {
			return Own(a), true
		}
	}
	if !equivalent || a.Equivalents == nil {
		return Match{}, false
	}
	eqs := a.Equivalents.For(a.Resource, a.Subresource)
	for i := range rules {
		for _, eq := range eqs {
			if eq.Resource != a.Resource && rules[i].matchesAs(a, eq.Resource) {
				return Match{Resource: eq.Resource, Kind: eq.Kind}, true
			}
		}
	}
	return Match{}, false
}
