package rbac

import (
	"context"
	"fmt"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// Authorizer decides requests with RBAC from the roles and bindings it has
// been given. It is safe for concurrent use; the zero value is not ready,
// use New.
type Authorizer struct {
	mu sync.RWMutex
	st *state
}

var (
	_ authorizer.Authorizer   = (*Authorizer)(nil)
	_ authorizer.RuleResolver = (*Authorizer)(nil)
	_ RuleSource              = (*Authorizer)(nil)
)

// New returns an Authorizer that knows no roles or bindings yet, and so
// allows nothing.
func New() *Authorizer {
	return &Authorizer{st: newState()}
}

// Upsert adds or replaces a *rbacv1.Role, ClusterRole, RoleBinding or
// ClusterRoleBinding, keyed by namespace and name. The object is copied:
// the caller may change it afterwards. A ClusterRole's rules are used as
// stored; aggregation is the job of whoever maintains aggregated roles (see
// AggregatedRules).
func (a *Authorizer) Upsert(obj runtime.Object) error {
	switch o := obj.(type) {
	case *rbacv1.ClusterRole:
		if o != nil {
			r := compileRole(o.Rules)
			a.mu.Lock()
			a.st.clusterRoles[o.Name] = r
			a.mu.Unlock()
			return nil
		}
	case *rbacv1.Role:
		if o != nil && o.Namespace != "" {
			r := compileRole(o.Rules)
			a.mu.Lock()
			a.st.roles[nsName{o.Namespace, o.Name}] = r
			a.mu.Unlock()
			return nil
		}
	case *rbacv1.ClusterRoleBinding:
		if o != nil {
			b := compileBinding("", o.Name, o.RoleRef, o.Subjects)
			a.mu.Lock()
			a.st.putBinding(b)
			a.mu.Unlock()
			return nil
		}
	case *rbacv1.RoleBinding:
		if o != nil && o.Namespace != "" {
			b := compileBinding(o.Namespace, o.Name, o.RoleRef, o.Subjects)
			a.mu.Lock()
			a.st.putBinding(b)
			a.mu.Unlock()
			return nil
		}
	}
	return fmt.Errorf("upsert %T: %w", obj, ErrUnsupportedObject)
}

// Delete forgets the role or binding with the object's kind, namespace and
// name; only those fields of obj are read. Forgetting an unknown object is
// not an error.
func (a *Authorizer) Delete(obj runtime.Object) error {
	switch o := obj.(type) {
	case *rbacv1.ClusterRole:
		if o != nil {
			a.mu.Lock()
			delete(a.st.clusterRoles, o.Name)
			a.mu.Unlock()
			return nil
		}
	case *rbacv1.Role:
		if o != nil && o.Namespace != "" {
			a.mu.Lock()
			delete(a.st.roles, nsName{o.Namespace, o.Name})
			a.mu.Unlock()
			return nil
		}
	case *rbacv1.ClusterRoleBinding:
		if o != nil {
			a.mu.Lock()
			a.st.deleteBinding("", o.Name)
			a.mu.Unlock()
			return nil
		}
	case *rbacv1.RoleBinding:
		if o != nil && o.Namespace != "" {
			a.mu.Lock()
			a.st.deleteBinding(o.Namespace, o.Name)
			a.mu.Unlock()
			return nil
		}
	}
	return fmt.Errorf("delete %T: %w", obj, ErrUnsupportedObject)
}

// Replace makes objs everything the Authorizer knows, as after a fresh
// list. Nothing changes if one of them is not an RBAC object.
func (a *Authorizer) Replace(objs []runtime.Object) error {
	fresh := &Authorizer{st: newState()}
	for _, obj := range objs {
		if err := fresh.Upsert(obj); err != nil {
			return fmt.Errorf("replace: %w", err)
		}
	}
	a.mu.Lock()
	a.st = fresh.st
	a.mu.Unlock()
	return nil
}

// Authorize allows the request when a binding naming the requester refers
// to a rule that matches it, with kube-apiserver's reason; otherwise it has
// no opinion (RBAC never denies), with a reason only when a binding refers
// to a missing role. It never returns an error.
func (a *Authorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	u := attrs.GetUser()
	if u == nil {
		return authorizer.DecisionNoOpinion, "", nil
	}
	d := decision{q: newRequest(attrs), userName: u.GetName(), groups: u.GetGroups()}
	namespace := attrs.GetNamespace()

	a.mu.RLock()
	reason, ok := a.st.allowed("", &d)
	if !ok && namespace != "" {
		reason, ok = a.st.allowed(namespace, &d)
	}
	a.mu.RUnlock()

	if ok {
		return authorizer.DecisionAllow, reason, nil
	}
	if len(d.errs) > 0 {
		return authorizer.DecisionNoOpinion, "RBAC: " + utilerrors.NewAggregate(d.errs).Error(), nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// ConditionsAwareAuthorize is Authorize: RBAC has no conditional decisions.
func (a *Authorizer) ConditionsAwareAuthorize(ctx context.Context, attrs authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return authorizer.ConditionsAwareDecisionFromParts(a.Authorize(ctx, attrs))
}

// EvaluateConditions is never needed, since RBAC returns no conditions.
func (a *Authorizer) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

// RulesFor lists the rules granted to u cluster-wide and, when namespace is
// set, in that namespace, for SelfSubjectRulesReview: every rule with
// resources as a ResourceRuleInfo, every rule with non-resource URLs as a
// NonResourceRuleInfo, the list never marked incomplete, and missing roles
// reported in the error (the rules found are still valid). The returned
// values share memory with the Authorizer and must not be changed.
func (a *Authorizer) RulesFor(ctx context.Context, u user.Info, namespace string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	rules, err := a.policyRules(u, namespace, listerErrors)
	var resourceRules []authorizer.ResourceRuleInfo
	var nonResourceRules []authorizer.NonResourceRuleInfo
	for _, r := range rules {
		if len(r.Resources) > 0 {
			resourceRules = append(resourceRules, &authorizer.DefaultResourceRuleInfo{
				Verbs:         r.Verbs,
				APIGroups:     r.APIGroups,
				Resources:     r.Resources,
				ResourceNames: r.ResourceNames,
			})
		}
		if len(r.NonResourceURLs) > 0 {
			nonResourceRules = append(nonResourceRules, &authorizer.DefaultNonResourceRuleInfo{
				Verbs:           r.Verbs,
				NonResourceURLs: r.NonResourceURLs,
			})
		}
	}
	return resourceRules, nonResourceRules, false, err
}

// PolicyRulesFor returns the rules granted to u cluster-wide and, when
// namespace is set, in that namespace, ClusterRoleBindings first. Missing
// roles are reported in the error, worded as kube-apiserver's storage words
// them; the rules found are still valid. The rules share memory with the
// Authorizer and must not be changed.
func (a *Authorizer) PolicyRulesFor(u user.Info, namespace string) ([]rbacv1.PolicyRule, error) {
	return a.policyRules(u, namespace, storageErrors)
}

func (a *Authorizer) policyRules(u user.Info, namespace string, style errorStyle) ([]rbacv1.PolicyRule, error) {
	if u == nil {
		return nil, nil
	}
	a.mu.RLock()
	rules, errs := a.st.policyRulesFor(namespace, u.GetName(), u.GetGroups(), style)
	a.mu.RUnlock()
	return rules, utilerrors.NewAggregate(errs)
}

// RoleRefRules returns the rules of the role a binding in namespace
// ("" for a ClusterRoleBinding) refers to, or a NotFound error naming
// roles.rbac.authorization.k8s.io or clusterroles.rbac.authorization.k8s.io.
// The rules share memory with the Authorizer and must not be changed.
func (a *Authorizer) RoleRefRules(ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error) {
	a.mu.RLock()
	r, err := a.st.roleOf(ref, namespace, storageErrors)
	a.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	return r.policy, nil
}
