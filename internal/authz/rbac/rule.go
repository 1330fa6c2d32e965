package rbac

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// request is the part of authorizer.Attributes that rules look at, read
// once per decision rather than once per rule.
type request struct {
	resourceRequest bool
	verb            string
	group           string
	resource        string
	subresource     string
	name            string
	path            string
}

func newRequest(a authorizer.Attributes) request {
	if a.IsResourceRequest() {
		return request{
			resourceRequest: true,
			verb:            a.GetVerb(),
			group:           a.GetAPIGroup(),
			resource:        a.GetResource(),
			subresource:     a.GetSubresource(),
			name:            a.GetName(),
		}
	}
	return request{verb: a.GetVerb(), path: a.GetPath()}
}

// rule is a PolicyRule compiled for matching: the wildcards are flags, the
// "*/subresource" forms and the "prefix*" URLs are cut out once.
type rule struct {
	verbs     []string
	allVerbs  bool
	groups    []string
	allGroups bool

	// resources holds every entry as written; a request matches one when it
	// equals "resource" or "resource/subresource".
	resources    []string
	allResources bool
	// anySubresource holds the "x" of every "*/x" entry.
	anySubresource []string
	names          []string

	urls        []string
	urlPrefixes []string
	allURLs     bool
}

func compileRule(p *rbacv1.PolicyRule) rule {
	r := rule{
		verbs:     p.Verbs,
		groups:    p.APIGroups,
		resources: p.Resources,
		names:     p.ResourceNames,
		urls:      p.NonResourceURLs,
	}
	r.allVerbs = has(p.Verbs, rbacv1.VerbAll)
	r.allGroups = has(p.APIGroups, rbacv1.APIGroupAll)
	for _, res := range p.Resources {
		if res == rbacv1.ResourceAll {
			r.allResources = true
		}
		// "*/" alone never matches as a wildcard: a request without a
		// subresource is not a request for any subresource.
		if len(res) > 2 && strings.HasPrefix(res, "*/") {
			r.anySubresource = append(r.anySubresource, res[2:])
		}
	}
	for _, u := range p.NonResourceURLs {
		if u == rbacv1.NonResourceAll {
			r.allURLs = true
		}
		if strings.HasSuffix(u, "*") {
			// Every trailing star goes: "/logs**" is the prefix "/logs".
			r.urlPrefixes = append(r.urlPrefixes, strings.TrimRight(u, "*"))
		}
	}
	return r
}

func (r *rule) allows(q *request) bool {
	if !r.allVerbs && !has(r.verbs, q.verb) {
		return false
	}
	if !q.resourceRequest {
		return r.urlMatches(q.path)
	}
	if !r.allGroups && !has(r.groups, q.group) {
		return false
	}
	if !r.resourceMatches(q.resource, q.subresource) {
		return false
	}
	// A rule without names applies to every name, and to requests that have
	// none (list, create); a rule with names only to those names.
	return len(r.names) == 0 || has(r.names, q.name)
}

func (r *rule) resourceMatches(resource, subresource string) bool {
	if r.allResources {
		return true
	}
	for _, res := range r.resources {
		if subresource == "" {
			if res == resource {
				return true
			}
			continue
		}
		// res == resource+"/"+subresource, without building the string.
		if len(res) == len(resource)+1+len(subresource) &&
			res[len(resource)] == '/' &&
			res[:len(resource)] == resource &&
			res[len(resource)+1:] == subresource {
			return true
		}
	}
	if subresource != "" {
		return has(r.anySubresource, subresource)
	}
	return false
}

func (r *rule) urlMatches(path string) bool {
	if r.allURLs || has(r.urls, path) {
		return true
	}
	for _, p := range r.urlPrefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// RulesAllow reports whether any of the rules allows the request described
// by attrs, with RBAC's matching: verbs, API groups, resources (with
// "resource/subresource", "*/subresource" and "*"), resource names and
// non-resource URLs (exact, "prefix*" or "*"). The user is not looked at.
// The Node authorizer uses it for the rules it grants every node.
func RulesAllow(attrs authorizer.Attributes, rules ...rbacv1.PolicyRule) bool {
	q := newRequest(attrs)
	for i := range rules {
		r := compileRule(&rules[i])
		if r.allows(&q) {
			return true
		}
	}
	return false
}

func has(set []string, s string) bool {
	for _, e := range set {
		if e == s {
			return true
		}
	}
	return false
}
