package rbac

import (
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Policy is a set of RBAC objects: the default policy Bootstrap returns.
type Policy struct {
	ClusterRoles        []rbacv1.ClusterRole        `json:"clusterRoles"`
	ClusterRoleBindings []rbacv1.ClusterRoleBinding `json:"clusterRoleBindings"`
	// Roles and RoleBindings live in kube-system and kube-public.
	Roles        []rbacv1.Role        `json:"roles"`
	RoleBindings []rbacv1.RoleBinding `json:"roleBindings"`
}

// Objects returns pointers to every object of the policy, roles before
// bindings, for storing or for Authorizer.Replace.
func (p Policy) Objects() []runtime.Object {
	var out []runtime.Object
	for i := range p.ClusterRoles {
		out = append(out, &p.ClusterRoles[i])
	}
	for i := range p.Roles {
		out = append(out, &p.Roles[i])
	}
	for i := range p.ClusterRoleBindings {
		out = append(out, &p.ClusterRoleBindings[i])
	}
	for i := range p.RoleBindings {
		out = append(out, &p.RoleBindings[i])
	}
	return out
}

// The labels and annotation every default object carries: the label marks
// the object as a default, the annotation lets reconciliation update it
// (an administrator opts an object out by setting it to "false").
const (
	bootstrapLabel      = "kubernetes.io/bootstrapping"
	bootstrapLabelValue = "rbac-defaults"
)

// Bootstrap returns the default roles and bindings kube-apiserver creates
// and reconciles at start-up, with kube-apiserver's default feature gates:
// cluster-admin, admin, edit and view (the last three aggregated from the
// system:aggregate-to-* roles and from any role labelled
// rbac.authorization.k8s.io/aggregate-to-<name>: "true"), the system:
// groupDiscovery, user, node, component and certificate-approval roles, one
// system:controller:<name> role for each kube-controller-manager
// controller, and the leader-election and bootstrap roles of kube-system
// and kube-public, each with its binding. Every call returns fresh objects.
func Bootstrap() Policy {
	p := Policy{
		ClusterRoles:        append(clusterRoles(), controllerRoles()...),
		ClusterRoleBindings: append(clusterRoleBindings(), controllerRoleBindings()...),
		Roles:               namespaceRoles(),
		RoleBindings:        namespaceRoleBindings(),
	}
	slices.SortStableFunc(p.ClusterRoles, func(a, b rbacv1.ClusterRole) int { return strings.Compare(a.Name, b.Name) })
	slices.SortStableFunc(p.ClusterRoleBindings, func(a, b rbacv1.ClusterRoleBinding) int { return strings.Compare(a.Name, b.Name) })
	for i := range p.ClusterRoles {
		p.ClusterRoles[i].TypeMeta = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRole"}
		setDefaultMetadata(&p.ClusterRoles[i].ObjectMeta)
	}
	for i := range p.ClusterRoleBindings {
		p.ClusterRoleBindings[i].TypeMeta = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "ClusterRoleBinding"}
		setDefaultMetadata(&p.ClusterRoleBindings[i].ObjectMeta)
	}
	for i := range p.Roles {
		p.Roles[i].TypeMeta = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "Role"}
		setDefaultMetadata(&p.Roles[i].ObjectMeta)
	}
	for i := range p.RoleBindings {
		p.RoleBindings[i].TypeMeta = metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"}
		setDefaultMetadata(&p.RoleBindings[i].ObjectMeta)
	}
	return p
}

func setDefaultMetadata(m *metav1.ObjectMeta) {
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	m.Labels[bootstrapLabel] = bootstrapLabelValue
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	m.Annotations[rbacv1.AutoUpdateAnnotationKey] = "true"
}

// Verb sets of the default roles.
var (
	readVerbs       = []string{"get", "list", "watch"}
	writeVerbs      = []string{"create", "update", "patch", "delete", "deletecollection"}
	readWriteVerbs  = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
	readUpdateVerbs = []string{"get", "list", "watch", "update", "patch"}
)

// API groups named by the default roles.
const (
	groupCore                  = ""
	groupApps                  = "apps"
	groupAuthn                 = "authentication.k8s.io"
	groupAuthz                 = "authorization.k8s.io"
	groupAutoscaling           = "autoscaling"
	groupBatch                 = "batch"
	groupCertificates          = "certificates.k8s.io"
	groupCoordination          = "coordination.k8s.io"
	groupDiscovery             = "discovery.k8s.io"
	groupExtensions            = "extensions"
	groupEvents                = "events.k8s.io"
	groupNetworking            = "networking.k8s.io"
	groupNode                  = "node.k8s.io"
	groupPolicy                = "policy"
	groupRBAC                  = rbacv1.GroupName
	groupResource              = "resource.k8s.io"
	groupStorage               = "storage.k8s.io"
	groupAdmissionRegistration = "admissionregistration.k8s.io"
)

// ruleBuilder writes a PolicyRule compactly:
// verbs("get").groups(groupCore).resources("pods").rule().
type ruleBuilder struct{ r rbacv1.PolicyRule }

func verbs(v ...string) *ruleBuilder {
	return &ruleBuilder{r: rbacv1.PolicyRule{Verbs: slices.Clone(v)}}
}

func (b *ruleBuilder) groups(g ...string) *ruleBuilder {
	b.r.APIGroups = append(b.r.APIGroups, g...)
	return b
}

func (b *ruleBuilder) resources(r ...string) *ruleBuilder {
	b.r.Resources = append(b.r.Resources, r...)
	return b
}

func (b *ruleBuilder) names(n ...string) *ruleBuilder {
	b.r.ResourceNames = append(b.r.ResourceNames, n...)
	return b
}

func (b *ruleBuilder) urls(u ...string) *ruleBuilder {
	b.r.NonResourceURLs = append(b.r.NonResourceURLs, u...)
	return b
}

// rule returns the rule with every list sorted, the canonical form
// kube-apiserver stores its defaults in.
func (b *ruleBuilder) rule() rbacv1.PolicyRule {
	r := b.r
	slices.Sort(r.Verbs)
	slices.Sort(r.APIGroups)
	slices.Sort(r.Resources)
	slices.Sort(r.ResourceNames)
	slices.Sort(r.NonResourceURLs)
	return r
}

func rules(bs ...*ruleBuilder) []rbacv1.PolicyRule {
	out := make([]rbacv1.PolicyRule, len(bs))
	for i, b := range bs {
		out[i] = b.rule()
	}
	return out
}

// eventsRule lets a component record events through either events API.
func eventsRule() *ruleBuilder {
	return verbs("create", "update", "patch").groups(groupCore, groupEvents).resources("events")
}

func clusterRole(name string, rs ...*ruleBuilder) rbacv1.ClusterRole {
	return rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules(rs...)}
}

func userSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{APIGroup: groupRBAC, Kind: rbacv1.UserKind, Name: name}
}

func groupSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{APIGroup: groupRBAC, Kind: rbacv1.GroupKind, Name: name}
}

func serviceAccountSubject(namespace, name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: namespace, Name: name}
}

// clusterBinding binds the ClusterRole of the same name.
func clusterBinding(name string, subjects ...rbacv1.Subject) rbacv1.ClusterRoleBinding {
	return rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: groupRBAC, Kind: "ClusterRole", Name: name},
		Subjects:   subjects,
	}
}
