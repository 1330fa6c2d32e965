package authzconfig

import (
	"context"
	"fmt"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// link is one authorizer of a chain.
type link struct {
	name  string
	az    authorizer.UnconditionalAuthorizer
	rules authorizer.RuleResolver // nil: contributes no rules
	// allowed and denied count its decisions; nil for the system:masters
	// rule, which kube-apiserver does not count either.
	allowed, denied incrementer
}

type incrementer interface{ Inc() }

// lazyCounter is a series of a counter vector created on its first
// increment: kube-apiserver exposes no zero series for decisions an
// authorizer never made.
type lazyCounter struct {
	vec    *prometheus.CounterVec
	labels []string
}

func (c lazyCounter) Inc() { c.vec.WithLabelValues(c.labels...).Inc() }

// chain asks its links in order until one allows or denies. It is
// immutable and safe for concurrent use.
type chain struct {
	links []link
}

var (
	_ authorizer.Authorizer   = (*chain)(nil)
	_ authorizer.RuleResolver = (*chain)(nil)
)

// Authorize returns the first Allow or Deny with that authorizer's reason
// and error. If nobody decides, the answer is NoOpinion with every reason,
// each prefixed by its authorizer's name, and every error.
func (c *chain) Authorize(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	var (
		reasons []string
		errs    []error
	)
	for i := range c.links {
		l := &c.links[i]
		d, reason, err := l.az.Authorize(ctx, a)
		switch d {
		case authorizer.DecisionAllow:
			if l.allowed != nil {
				l.allowed.Inc()
			}
			return d, reason, err
		case authorizer.DecisionDeny:
			if l.denied != nil {
				l.denied.Inc()
			}
			return d, reason, err
		}
		if err != nil {
			errs = append(errs, err)
		}
		if reason != "" {
			reasons = append(reasons, fmt.Sprintf("%s: %s", l.name, reason))
		}
	}
	return authorizer.DecisionNoOpinion, strings.Join(reasons, "\n"), utilerrors.NewAggregate(errs)
}

// ConditionsAwareAuthorize implements authorizer.Authorizer. No authorizer
// here answers with conditions, so this is Authorize's answer.
func (c *chain) ConditionsAwareAuthorize(ctx context.Context, a authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return authorizer.ConditionsAwareDecisionFromParts(c.Authorize(ctx, a))
}

// EvaluateConditions implements authorizer.Authorizer; there are never
// conditions, so it fails closed.
func (c *chain) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

// RulesFor gathers the rules of every authorizer that can list them
// (for SelfSubjectRulesReview); incomplete if any is.
func (c *chain) RulesFor(ctx context.Context, u user.Info, namespace string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	var (
		resources    []authorizer.ResourceRuleInfo
		nonResources []authorizer.NonResourceRuleInfo
		incomplete   bool
		errs         []error
	)
	for _, l := range c.links {
		if l.rules == nil {
			continue
		}
		r, n, inc, err := l.rules.RulesFor(ctx, u, namespace)
		incomplete = incomplete || inc
		if err != nil {
			errs = append(errs, err)
		}
		resources = append(resources, r...)
		nonResources = append(nonResources, n...)
	}
	return resources, nonResources, incomplete, utilerrors.NewAggregate(errs)
}
