package authzconfig

import (
	"context"
	"errors"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// alwaysAllow is --authorization-mode=AlwaysAllow.
type alwaysAllow struct{}

func (alwaysAllow) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionAllow, "", nil
}

// RulesFor lists everything, as kube-apiserver does.
func (alwaysAllow) RulesFor(context.Context, user.Info, string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	return []authorizer.ResourceRuleInfo{&authorizer.DefaultResourceRuleInfo{
			Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"},
		}}, []authorizer.NonResourceRuleInfo{&authorizer.DefaultNonResourceRuleInfo{
			Verbs: []string{"*"}, NonResourceURLs: []string{"*"},
		}}, false, nil
}

// alwaysDeny is --authorization-mode=AlwaysDeny. Like kube-apiserver's, it
// answers NoOpinion with a reason: the request is refused at the end of
// the chain unless an earlier authorizer (system:masters) allowed it.
type alwaysDeny struct{}

func (alwaysDeny) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionNoOpinion, "Everything is forbidden.", nil
}

func (alwaysDeny) RulesFor(context.Context, user.Info, string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	return []authorizer.ResourceRuleInfo{}, []authorizer.NonResourceRuleInfo{}, false, nil
}

// privilegedName is the chain name of the system:masters rule.
const privilegedName = "system-privileged-group.authorizer.kubernetes.io"

// errNoUser: a request reached authorization without a user.
var errNoUser = errors.New("no user on request.")

// privileged allows every request of a member of system:masters; it is
// first in every chain, as in kube-apiserver.
type privileged struct{}

func (privileged) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	u := a.GetUser()
	if u == nil {
		return authorizer.DecisionNoOpinion, "Error", errNoUser
	}
	for _, g := range u.GetGroups() {
		if g == user.SystemPrivilegedGroup {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}
