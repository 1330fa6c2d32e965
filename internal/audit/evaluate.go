package audit

import (
	"slices"
	"strings"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/request"
)

// Decision is what the policy says about one request. The zero value
// audits nothing, which is also the answer when no rule matches.
type Decision struct {
	Level auditv1.Level
	// OmitStages lists the stages not to record: the policy's omitStages
	// merged with the matching rule's, in stage order. Shared; do not modify.
	OmitStages []auditv1.Stage
	// OmitManagedFields drops metadata.managedFields from recorded bodies.
	OmitManagedFields bool
}

// Audited reports whether the request is recorded at all.
func (d Decision) Audited() bool {
	return d.Level != "" && d.Level != auditv1.LevelNone
}

// Omits reports whether stage s is not recorded.
func (d Decision) Omits(s auditv1.Stage) bool {
	return slices.Contains(d.OmitStages, s)
}

// rule is a compiled PolicyRule.
type rule struct {
	decision    Decision
	users       []string
	groups      []string
	verbs       []string
	namespaces  []string
	resources   []auditv1.GroupResources
	nonResource []string
	// kind says which request kinds the rule can match.
	kind ruleKind
}

type ruleKind int

const (
	anyRequest ruleKind = iota
	resourceRequests
	nonResourceRequests
)

// compilePolicy turns a validated policy into its evaluator: omitStages are
// merged once here instead of per request.
func compilePolicy(p *auditv1.Policy) *Policy {
	out := &Policy{
		rules: make([]rule, 0, len(p.Rules)),
		none: Decision{
			Level:             auditv1.LevelNone,
			OmitStages:        mergeStages(p.OmitStages, nil),
			OmitManagedFields: p.OmitManagedFields,
		},
	}
	for _, r := range p.Rules {
		c := rule{
			decision: Decision{
				Level:             r.Level,
				OmitStages:        mergeStages(p.OmitStages, r.OmitStages),
				OmitManagedFields: p.OmitManagedFields,
			},
			users:       r.Users,
			groups:      r.UserGroups,
			verbs:       r.Verbs,
			namespaces:  r.Namespaces,
			resources:   r.Resources,
			nonResource: r.NonResourceURLs,
		}
		if r.OmitManagedFields != nil {
			c.decision.OmitManagedFields = *r.OmitManagedFields
		}
		switch {
		case len(r.Namespaces) > 0 || len(r.Resources) > 0:
			c.kind = resourceRequests
		case len(r.NonResourceURLs) > 0:
			c.kind = nonResourceRequests
		}
		out.rules = append(out.rules, c)
	}
	return out
}

// mergeStages returns the union of a and b in the canonical stage order, or
// nil when empty.
func mergeStages(a, b []auditv1.Stage) []auditv1.Stage {
	var out []auditv1.Stage
	for _, s := range allStages {
		if slices.Contains(a, s) || slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}

// Evaluate returns the decision of the first rule that matches the request,
// or LevelNone with the policy's omitStages. A nil user matches no rule that
// names users or groups.
func (p *Policy) Evaluate(info *request.Info, u user.Info) Decision {
	if p == nil {
		return Decision{Level: auditv1.LevelNone}
	}
	if info == nil {
		info = &request.Info{}
	}
	for i := range p.rules {
		if p.rules[i].matches(info, u) {
			return p.rules[i].decision
		}
	}
	return p.none
}

func (r *rule) matches(info *request.Info, u user.Info) bool {
	if len(r.users) > 0 && (u == nil || !slices.Contains(r.users, u.GetName())) {
		return false
	}
	if len(r.groups) > 0 && (u == nil || !anyIn(u.GetGroups(), r.groups)) {
		return false
	}
	if len(r.verbs) > 0 && !slices.Contains(r.verbs, info.Verb) {
		return false
	}
	switch r.kind {
	case resourceRequests:
		return info.IsResourceRequest && r.matchesResource(info)
	case nonResourceRequests:
		return !info.IsResourceRequest && r.matchesPath(info.Path)
	}
	return true
}

func anyIn(have, want []string) bool {
	for _, h := range have {
		if slices.Contains(want, h) {
			return true
		}
	}
	return false
}

// matchesResource follows kube-apiserver: namespaces "" matches
// cluster-scoped requests; a resource is "name", "name/sub", "*" (any
// resource and subresource), "*/sub" or "name/*" (the resource and all its
// subresources).
func (r *rule) matchesResource(info *request.Info) bool {
	if len(r.namespaces) > 0 && !slices.Contains(r.namespaces, info.Namespace) {
		return false
	}
	if len(r.resources) == 0 {
		return true
	}
	for _, gr := range r.resources {
		if gr.Group != info.APIGroup && gr.Group != "*" {
			continue
		}
		if len(gr.Resources) == 0 {
			return true
		}
		if len(gr.ResourceNames) > 0 && !slices.Contains(gr.ResourceNames, info.Name) {
			continue
		}
		for _, res := range gr.Resources {
			if resourceMatches(res, info.Resource, info.Subresource) {
				return true
			}
		}
	}
	return false
}

func resourceMatches(pattern, resource, sub string) bool {
	if pattern == "*" {
		return true
	}
	if sub == "" {
		if pattern == resource {
			return true
		}
	} else if rs, ok := strings.CutPrefix(pattern, resource); ok && len(rs) == len(sub)+1 && rs[0] == '/' && rs[1:] == sub {
		// pattern == resource + "/" + sub, without building the string.
		return true
	}
	if s, ok := strings.CutPrefix(pattern, "*/"); ok && sub != "" && s == sub {
		return true
	}
	if res, ok := strings.CutSuffix(pattern, "/*"); ok && res == resource {
		return true
	}
	return false
}

// matchesPath matches "*", an exact path, or a prefix ending in "*".
func (r *rule) matchesPath(path string) bool {
	for _, spec := range r.nonResource {
		if spec == "*" || spec == path {
			return true
		}
		if prefix, ok := strings.CutSuffix(spec, "*"); ok && strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return false
}
