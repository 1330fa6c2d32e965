package rbac

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

type nsName struct{ namespace, name string }

// role is a Role or ClusterRole: its rules as stored (for RulesFor and the
// escalation check) and compiled (for decisions).
type role struct {
	policy []rbacv1.PolicyRule
	rules  []rule
}

func compileRole(rules []rbacv1.PolicyRule) *role {
	// A private copy: the caller may keep changing its object.
	r := &role{policy: make([]rbacv1.PolicyRule, len(rules)), rules: make([]rule, len(rules))}
	for i := range rules {
		rules[i].DeepCopyInto(&r.policy[i])
		r.rules[i] = compileRule(&r.policy[i])
	}
	return r
}

// binding is a RoleBinding (namespace set) or ClusterRoleBinding, with each
// subject resolved and its allow reason built ahead of time.
type binding struct {
	namespace  string
	name       string
	roleRef    rbacv1.RoleRef
	principals []principal
	reasons    []string
	keys       []subjectKey
}

func compileBinding(namespace, name string, ref rbacv1.RoleRef, subjects []rbacv1.Subject) *binding {
	b := &binding{
		namespace:  namespace,
		name:       name,
		roleRef:    ref,
		principals: make([]principal, len(subjects)),
		reasons:    make([]string, len(subjects)),
	}
	for i := range subjects {
		p := resolveSubject(&subjects[i], namespace)
		b.principals[i] = p
		if !p.ok {
			continue
		}
		b.reasons[i] = allowReason(namespace, name, ref, &subjects[i])
		k := subjectKey{namespace: namespace, group: p.group, name: p.name}
		if !slices.Contains(b.keys, k) {
			b.keys = append(b.keys, k)
		}
	}
	return b
}

// reasonFor names the first subject that matches the user, as
// kube-apiserver does.
func (b *binding) reasonFor(userName string, groups []string) string {
	for i := range b.principals {
		if b.principals[i].matches(userName, groups) {
			return b.reasons[i]
		}
	}
	return "RBAC: allowed by " + b.name
}

// state is everything the authorizer knows. It is changed in place under
// the Authorizer's write lock and read under its read lock.
type state struct {
	clusterRoles    map[string]*role
	roles           map[nsName]*role
	clusterBindings map[string]*binding
	roleBindings    map[nsName]*binding
	// index lists, for each subject, the bindings that name it, sorted by
	// binding name so that decisions and reasons are deterministic.
	index map[subjectKey][]*binding
}

func newState() *state {
	return &state{
		clusterRoles:    map[string]*role{},
		roles:           map[nsName]*role{},
		clusterBindings: map[string]*binding{},
		roleBindings:    map[nsName]*binding{},
		index:           map[subjectKey][]*binding{},
	}
}

func (s *state) putBinding(b *binding) {
	if b.namespace == "" {
		if old := s.clusterBindings[b.name]; old != nil {
			s.unlink(old)
		}
		s.clusterBindings[b.name] = b
	} else {
		k := nsName{b.namespace, b.name}
		if old := s.roleBindings[k]; old != nil {
			s.unlink(old)
		}
		s.roleBindings[k] = b
	}
	s.link(b)
}

func (s *state) deleteBinding(namespace, name string) {
	if namespace == "" {
		if old := s.clusterBindings[name]; old != nil {
			s.unlink(old)
			delete(s.clusterBindings, name)
		}
		return
	}
	k := nsName{namespace, name}
	if old := s.roleBindings[k]; old != nil {
		s.unlink(old)
		delete(s.roleBindings, k)
	}
}

func (s *state) link(b *binding) {
	for _, k := range b.keys {
		bucket := s.index[k]
		i, _ := slices.BinarySearchFunc(bucket, b.name, func(e *binding, name string) int {
			return strings.Compare(e.name, name)
		})
		s.index[k] = slices.Insert(bucket, i, b)
	}
}

func (s *state) unlink(b *binding) {
	for _, k := range b.keys {
		bucket := s.index[k]
		if i := slices.Index(bucket, b); i >= 0 {
			bucket = slices.Delete(bucket, i, i+1)
		}
		if len(bucket) == 0 {
			delete(s.index, k)
		} else {
			s.index[k] = bucket
		}
	}
}

// errorStyle chooses how a missing role is reported. kube-apiserver's
// authorizer reads roles from informer listers, whose not-found errors name
// the singular resource ("clusterrole.rbac.authorization.k8s.io"); its
// escalation check reads them from storage, whose errors name the plural.
type errorStyle int

const (
	listerErrors errorStyle = iota
	storageErrors
)

// roleOf finds the rules a binding refers to. RoleBindings find Roles in
// their own namespace; a ClusterRoleBinding that names a Role finds none.
func (s *state) roleOf(ref rbacv1.RoleRef, namespace string, style errorStyle) (*role, error) {
	switch ref.Kind {
	case "Role":
		if r := s.roles[nsName{namespace, ref.Name}]; r != nil {
			return r, nil
		}
		return nil, notFound("role", ref.Name, style)
	case "ClusterRole":
		if r := s.clusterRoles[ref.Name]; r != nil {
			return r, nil
		}
		return nil, notFound("clusterrole", ref.Name, style)
	default:
		return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
	}
}

func notFound(resource, name string, style errorStyle) error {
	if style == storageErrors {
		resource += "s"
	}
	return apierrors.NewNotFound(rbacv1.Resource(resource), name)
}

// decision is the work of one Authorize call: the request, the requester,
// the roles already found not to allow the request (many bindings refer to
// the same few roles, and a role that did not allow the request through one
// binding will not through another), and the missing roles met.
type decision struct {
	q        request
	userName string
	groups   []string
	errs     []error

	rejected     [8]*role
	nRejected    int
	moreRejected []*role
}

func (d *decision) wasRejected(r *role) bool {
	for i := range d.nRejected {
		if d.rejected[i] == r {
			return true
		}
	}
	return slices.Contains(d.moreRejected, r)
}

func (d *decision) reject(r *role) {
	if d.nRejected < len(d.rejected) {
		d.rejected[d.nRejected] = r
		d.nRejected++
		return
	}
	d.moreRejected = append(d.moreRejected, r)
}

// allowed looks for a binding in scope (namespace "" for cluster-wide) that
// names the requester and refers to a rule allowing the request. Bindings
// whose role is missing add an error to d.errs.
func (s *state) allowed(namespace string, d *decision) (string, bool) {
	if reason, ok := s.allowedBy(s.index[subjectKey{namespace: namespace, name: d.userName}], namespace, d); ok {
		return reason, true
	}
	for _, g := range d.groups {
		if reason, ok := s.allowedBy(s.index[subjectKey{namespace: namespace, group: true, name: g}], namespace, d); ok {
			return reason, true
		}
	}
	return "", false
}

func (s *state) allowedBy(bucket []*binding, namespace string, d *decision) (string, bool) {
	for _, b := range bucket {
		r, err := s.roleOf(b.roleRef, namespace, listerErrors)
		if err != nil {
			d.errs = append(d.errs, err)
			continue
		}
		if d.wasRejected(r) {
			continue
		}
		for i := range r.rules {
			if r.rules[i].allows(&d.q) {
				return b.reasonFor(d.userName, d.groups), true
			}
		}
		d.reject(r)
	}
	return "", false
}

// bindingsFor returns the bindings that name the user in scope, each once,
// ordered by name.
func (s *state) bindingsFor(namespace, userName string, groups []string) []*binding {
	seen := map[*binding]bool{}
	var out []*binding
	add := func(bucket []*binding) {
		for _, b := range bucket {
			if !seen[b] {
				seen[b] = true
				out = append(out, b)
			}
		}
	}
	add(s.index[subjectKey{namespace: namespace, name: userName}])
	for _, g := range groups {
		add(s.index[subjectKey{namespace: namespace, group: true, name: g}])
	}
	slices.SortFunc(out, func(a, b *binding) int { return strings.Compare(a.name, b.name) })
	return out
}

// policyRulesFor returns every rule granted to the user cluster-wide and,
// when namespace is set, in that namespace: ClusterRoleBindings first, then
// RoleBindings, as kube-apiserver's rule resolver visits them. The rules
// share memory with the state and must not be changed.
func (s *state) policyRulesFor(namespace, userName string, groups []string, style errorStyle) ([]rbacv1.PolicyRule, []error) {
	var rules []rbacv1.PolicyRule
	var errs []error
	scopes := []string{""}
	if namespace != "" {
		scopes = append(scopes, namespace)
	}
	for _, scope := range scopes {
		for _, b := range s.bindingsFor(scope, userName, groups) {
			r, err := s.roleOf(b.roleRef, scope, style)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			rules = append(rules, r.policy...)
		}
	}
	return rules, errs
}
