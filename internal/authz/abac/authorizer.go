package abac

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// reasonNoMatch is kube-apiserver's reason when no rule allows a request.
const reasonNoMatch = "No policy matched."

// Authorizer allows the requests some rule of its policy file matches, in
// file order, and has no opinion on the rest; it never denies. It is
// immutable, and so safe for concurrent use.
type Authorizer struct {
	rules []rule
}

var (
	_ authorizer.Authorizer   = (*Authorizer)(nil)
	_ authorizer.RuleResolver = (*Authorizer)(nil)
)

// New reads the policy file at path once, as kube-apiserver does at start
// (the file is not watched). A missing or unreadable file is the os error;
// a bad line is a *LoadError with its number and text. A file with legacy
// (unversioned) lines loads, with the warning kube-apiserver logs.
func New(path string) (*Authorizer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rules, legacy, err := parse(path, f)
	if err != nil {
		return nil, err
	}
	if legacy > 0 {
		slog.Warn(fmt.Sprintf("Policy file %s contained unversioned rules. See docs/admin/authorization.md#abac-mode for ABAC file format details.", path))
	}
	return &Authorizer{rules: rules}, nil
}

// Authorize allows the request when a rule matches its user, verb and
// resource or path; otherwise it has no opinion, with kube-apiserver's
// reason. It never returns an error.
func (a *Authorizer) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	for i := range a.rules {
		if a.rules[i].matches(attrs) {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, reasonNoMatch, nil
}

// ConditionsAwareAuthorize is Authorize: ABAC has no conditional decisions.
func (a *Authorizer) ConditionsAwareAuthorize(ctx context.Context, attrs authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return authorizer.ConditionsAwareDecisionFromParts(a.Authorize(ctx, attrs))
}

// EvaluateConditions is never needed, since ABAC returns no conditions.
func (a *Authorizer) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

// RulesFor lists, for SelfSubjectRulesReview, what the rules naming u allow
// in namespace (rules for namespace "*" included): a rule with a resource
// as a ResourceRuleInfo for its one API group and resource, a rule with a
// non-resource path as a NonResourceRuleInfo; the verbs are get, list and
// watch for a read-only rule and "*" otherwise. The list is never marked
// incomplete, although every rule also allows reads it does not list. The
// namespace test applies to path rules too, so a v1beta1 path rule (which
// has no namespace) is listed only when namespace is empty, as in
// kube-apiserver.
func (a *Authorizer) RulesFor(_ context.Context, u user.Info, namespace string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	var resourceRules []authorizer.ResourceRuleInfo
	var nonResourceRules []authorizer.NonResourceRuleInfo
	for i := range a.rules {
		r := &a.rules[i]
		if !r.subjectMatches(u) || (r.Namespace != "*" && r.Namespace != namespace) {
			continue
		}
		if r.Resource != "" {
			resourceRules = append(resourceRules, &authorizer.DefaultResourceRuleInfo{
				Verbs:     r.verbs(),
				APIGroups: []string{r.APIGroup},
				Resources: []string{r.Resource},
			})
		}
		if r.NonResourcePath != "" {
			nonResourceRules = append(nonResourceRules, &authorizer.DefaultNonResourceRuleInfo{
				Verbs:           r.verbs(),
				NonResourceURLs: []string{r.NonResourcePath},
			})
		}
	}
	return resourceRules, nonResourceRules, false, nil
}

// verbs are what RulesFor reports: ABAC has no verbs, only read-only or
// everything.
func (r *rule) verbs() []string {
	if r.Readonly {
		return []string{"get", "list", "watch"}
	}
	return []string{"*"}
}

// matches: the subject, then the verb (a read-only rule allows get, list
// and watch only; every rule allows those), then the resource or the path,
// whichever kind of request it is.
func (r *rule) matches(a authorizer.Attributes) bool {
	if !r.subjectMatches(a.GetUser()) {
		return false
	}
	if r.Readonly && !a.IsReadOnly() {
		return false
	}
	if a.IsResourceRequest() {
		return r.resourceMatches(a)
	}
	return r.pathMatches(a.GetPath())
}

// subjectMatches: the user, when the rule names one, must be the
// requester, and the group, when it names one, one of the requester's
// groups; a rule naming neither matches nobody. ("*" has become
// system:authenticated when the file was read, so the wildcard branches
// only guard rules built otherwise.)
func (r *rule) subjectMatches(u user.Info) bool {
	if u == nil {
		return false
	}
	matched := false
	if r.User != "" {
		if r.User != "*" && r.User != u.GetName() {
			return false
		}
		matched = true
	}
	if r.Group != "" {
		if r.Group != "*" && !slices.Contains(u.GetGroups(), r.Group) {
			return false
		}
		matched = true
	}
	return matched
}

// resourceMatches compares namespace, resource and API group, each exactly
// or by "*". The subresource and the object name play no part, and an
// empty namespace in the rule matches only cluster-scoped requests, an
// empty API group only the core group.
func (r *rule) resourceMatches(a authorizer.Attributes) bool {
	return (r.Namespace == "*" || r.Namespace == a.GetNamespace()) &&
		(r.Resource == "*" || r.Resource == a.GetResource()) &&
		(r.APIGroup == "*" || r.APIGroup == a.GetAPIGroup())
}

// pathMatches: "*" is every path, a path ending in "*" every path that
// starts with what comes before its trailing stars ("/foo/*" matches
// "/foo/" and "/foo/bar" but not "/foo"), anything else that path exactly.
func (r *rule) pathMatches(path string) bool {
	p := r.NonResourcePath
	switch {
	case p == "*", p == path:
		return true
	case strings.HasSuffix(p, "*"):
		return strings.HasPrefix(path, strings.TrimRight(p, "*"))
	}
	return false
}
