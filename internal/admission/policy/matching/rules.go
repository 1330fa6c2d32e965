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
	if !r.matchesScope(a) || !containsOrWildcard(r.operations, string(a.Operation)) ||
		!containsOrWildcard(r.groups, a.Resource.Group) || !containsOrWildcard(r.versions, a.Resource.Version) ||
		!r.matchesResource(a.Resource.Resource, a.Subresource) {
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

func anyRuleMatches(rules []Rule, a *admission.Attributes) bool {
	for i := range rules {
		if rules[i].Matches(a) {
			return true
		}
	}
	return false
}
