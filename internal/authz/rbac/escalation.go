package rbac

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/admission"
)

// RuleSource is where the escalation check finds the rules a user holds and
// the rules a binding would grant. *Authorizer is one.
type RuleSource interface {
	// PolicyRulesFor returns the rules granted to u cluster-wide and, when
	// namespace is set, in that namespace. An error may come with the rules
	// that could be found.
	PolicyRulesFor(u user.Info, namespace string) ([]rbacv1.PolicyRule, error)
	// RoleRefRules returns the rules of the role a binding in namespace (""
	// for a ClusterRoleBinding) refers to.
	RoleRefRules(ref rbacv1.RoleRef, namespace string) ([]rbacv1.PolicyRule, error)
}

// fullAuthority is cluster-admin's rules: what it takes to set an
// aggregationRule, since an aggregated role can gather anything.
var fullAuthority = []rbacv1.PolicyRule{
	{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
}

// NewEscalationCheck returns the admission validator that keeps users from
// granting permissions they do not hold, as kube-apiserver's RBAC storage
// does:
//
//   - creating or updating a Role or ClusterRole is forbidden unless the
//     requester already holds every rule in it (in the role's namespace, or
//     cluster-wide for a ClusterRole), or may "escalate" roles/clusterroles;
//     setting or keeping an aggregationRule on a ClusterRole takes
//     cluster-admin's rules;
//   - creating or updating a RoleBinding or ClusterRoleBinding is forbidden
//     unless the requester may "bind" the referenced role (resourceName =
//     role name, in the binding's namespace) or already holds every rule of
//     that role;
//   - members of system:masters pass, and updates that change nothing but
//     ownerReferences, finalizers or managedFields pass.
//
// rules supplies the requester's rules and the referenced roles' rules;
// authz (the whole authorization chain) answers the escalate and bind
// checks. Objects must be rbac/v1 types.
func NewEscalationCheck(rules RuleSource, authz authorizer.UnconditionalAuthorizer) admission.Validator {
	c := &escalationCheck{rules: rules, authz: authz}
	return admission.ValidatorFunc(c.validate)
}

type escalationCheck struct {
	rules RuleSource
	authz authorizer.UnconditionalAuthorizer
}

func (c *escalationCheck) validate(ctx context.Context, a *admission.Attributes) error {
	if a.Resource.Group != rbacv1.GroupName || a.Subresource != "" {
		return nil
	}
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	gr := a.Resource.GroupResource()
	switch a.Resource.Resource {
	case "roles", "clusterroles", "rolebindings", "clusterrolebindings":
	default:
		return nil
	}
	// system:masters is how the server's own loopback client is
	// recognised; it may do anything.
	if a.UserInfo != nil && has(a.UserInfo.GetGroups(), user.SystemPrivilegedGroup) {
		return nil
	}
	if a.Operation == admission.Update && onlyGCFieldsChanged(a.Object, a.OldObject) {
		return nil
	}

	switch o := a.Object.(type) {
	case *rbacv1.Role:
		if c.mayEscalate(ctx, a) {
			return nil
		}
		return c.confirmNoEscalation(gr, o.Name, a.UserInfo, a.Namespace, o.Rules)
	case *rbacv1.ClusterRole:
		if c.mayEscalate(ctx, a) {
			return nil
		}
		if err := c.confirmNoEscalation(gr, o.Name, a.UserInfo, "", o.Rules); err != nil {
			return err
		}
		old, _ := a.OldObject.(*rbacv1.ClusterRole)
		if hasAggregationRule(o) || (a.Operation == admission.Update && hasAggregationRule(old)) {
			if err := c.confirmNoEscalation(gr, o.Name, a.UserInfo, "", fullAuthority); err != nil {
				return apierrors.NewForbidden(gr, o.Name, errors.New("must have cluster-admin privileges to use the aggregationRule"))
			}
		}
		return nil
	case *rbacv1.RoleBinding:
		if a.Namespace == "" {
			return apierrors.NewBadRequest("namespace is required")
		}
		return c.checkBinding(ctx, gr, o.Name, a.UserInfo, o.RoleRef, a.Namespace)
	case *rbacv1.ClusterRoleBinding:
		return c.checkBinding(ctx, gr, o.Name, a.UserInfo, o.RoleRef, "")
	default:
		// Fail closed: an RBAC write we cannot read is not let through.
		return apierrors.NewInternalError(fmt.Errorf("escalation check of %s: %T: %w", gr, a.Object, ErrUnsupportedObject))
	}
}

// mayEscalate asks whether the requester may "escalate" the role resource
// being written. As in kube-apiserver the name is the one in the request
// path, so a create (POST to the collection) carries none, and an escalate
// permission limited to resourceNames applies to updates only.
func (c *escalationCheck) mayEscalate(ctx context.Context, a *admission.Attributes) bool {
	if a.UserInfo == nil || c.authz == nil {
		return false
	}
	attrs := authorizer.AttributesRecord{
		User:            a.UserInfo,
		Verb:            "escalate",
		APIGroup:        a.Resource.Group,
		APIVersion:      "*",
		Resource:        a.Resource.Resource,
		Namespace:       a.Namespace,
		ResourceRequest: true,
	}
	if a.Operation == admission.Update {
		attrs.Name = a.Name
	}
	d, _, _ := c.authz.Authorize(ctx, attrs)
	return d == authorizer.DecisionAllow
}

// mayBind asks whether the requester may "bind" the referenced role, in
// the binding's namespace ("" for ClusterRoleBindings), which lets a user
// hand out a role they do not hold themselves.
func (c *escalationCheck) mayBind(ctx context.Context, u user.Info, ref rbacv1.RoleRef, namespace string) bool {
	if u == nil || c.authz == nil {
		return false
	}
	attrs := authorizer.AttributesRecord{
		User:            u,
		Verb:            "bind",
		Namespace:       namespace,
		APIGroup:        ref.APIGroup,
		Name:            ref.Name,
		ResourceRequest: true,
	}
	switch ref.Kind {
	case "ClusterRole":
		attrs.Resource = "clusterroles"
	case "Role":
		attrs.Resource = "roles"
	default:
		return false
	}
	d, _, _ := c.authz.Authorize(ctx, attrs)
	return d == authorizer.DecisionAllow
}

func (c *escalationCheck) checkBinding(ctx context.Context, gr schema.GroupResource, name string, u user.Info, ref rbacv1.RoleRef, namespace string) error {
	if c.mayBind(ctx, u, ref, namespace) {
		return nil
	}
	rules, err := c.rules.RoleRefRules(ref, namespace)
	if err != nil {
		// kube-apiserver answers with the lookup's own error: binding a
		// role that does not exist is a 404 for clusterroles/roles.
		return err
	}
	return c.confirmNoEscalation(gr, name, u, namespace, rules)
}

// confirmNoEscalation forbids the write unless u holds every rule, in
// namespace and cluster-wide, with kube-apiserver's message:
//
//	user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:
//	{APIGroups:[""], Resources:["pods"], Verbs:["get"]}
func (c *escalationCheck) confirmNoEscalation(gr schema.GroupResource, name string, u user.Info, namespace string, rules []rbacv1.PolicyRule) error {
	if u == nil {
		return apierrors.NewForbidden(gr, name, ErrNoUser)
	}
	owned, resolveErr := c.rules.PolicyRulesFor(u, namespace)
	ok, missing := covers(owned, rules)
	if ok {
		return nil
	}
	lines := map[string]bool{}
	for _, r := range compactRules(missing) {
		lines[compactString(&r)] = true
	}
	sorted := make([]string, 0, len(lines))
	for l := range lines {
		sorted = append(sorted, l)
	}
	sort.Strings(sorted)
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s",
		u.GetName(), u.GetGroups(), strings.Join(sorted, "\n"))
	if resolveErr != nil {
		msg += fmt.Sprintf("; resolution errors: %v", []error{resolveErr})
	}
	return apierrors.NewForbidden(gr, name, errors.New(msg))
}

func hasAggregationRule(r *rbacv1.ClusterRole) bool {
	return r != nil && r.AggregationRule != nil && len(r.AggregationRule.ClusterRoleSelectors) > 0
}

// onlyGCFieldsChanged reports whether an update changes nothing but what
// the garbage collector and field managers write (ownerReferences,
// finalizers, managedFields), which must stay possible for anyone allowed
// to update the object, whatever it grants.
func onlyGCFieldsChanged(obj, old runtime.Object) bool {
	if obj == nil || old == nil {
		return false
	}
	oldMeta, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	cp := obj.DeepCopyObject()
	cpMeta, err := meta.Accessor(cp)
	if err != nil {
		return false
	}
	cpMeta.SetOwnerReferences(oldMeta.GetOwnerReferences())
	cpMeta.SetFinalizers(oldMeta.GetFinalizers())
	cpMeta.SetSelfLink(oldMeta.GetSelfLink())
	cpMeta.SetManagedFields(oldMeta.GetManagedFields())
	// Decoded and stored objects may differ in type metadata only.
	if t, err := meta.TypeAccessor(old); err == nil {
		if ct, err := meta.TypeAccessor(cp); err == nil {
			ct.SetAPIVersion(t.GetAPIVersion())
			ct.SetKind(t.GetKind())
		}
	}
	return equality.Semantic.DeepEqual(cp, old)
}
