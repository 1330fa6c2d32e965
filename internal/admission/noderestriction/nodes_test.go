package noderestriction

import (
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
)

func testNode(name string, mutate ...func(*corev1.Node)) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: "n1-uid"}}
	for _, m := range mutate {
		m(n)
	}
	return n
}

func withLabels(l map[string]string) func(*corev1.Node) {
	return func(n *corev1.Node) { n.Labels = maps.Clone(l) }
}

func withTaints(t ...corev1.Taint) func(*corev1.Node) {
	return func(n *corev1.Node) { n.Spec.Taints = t }
}

func withConfigSource(name string) func(*corev1.Node) {
	return func(n *corev1.Node) {
		n.Spec.ConfigSource = &corev1.NodeConfigSource{ConfigMap: &corev1.ConfigMapNodeConfigSource{
			Name: name, Namespace: "kube-system", KubeletConfigKey: "kubelet"}}
	}
}

// allowedLabels are labels a kubelet may set: its own kubernetes.io
// labels, its label namespaces and their subdomains, and anything outside
// kubernetes.io and k8s.io.
func allowedLabels(value string) map[string]string {
	l := map[string]string{
		"foo":                              value,
		"example.com/foo":                  value,
		"kubelet.kubernetes.io/foo":        value,
		"foo.kubelet.kubernetes.io/foo":    value,
		"node.kubernetes.io/foo":           value,
		"foo.node.kubernetes.io/foo":       value,
		"kubernetes.io.example.com/foo":    value,
		"notkubernetes.io/foo":             value,
		"beta.kubernetes.io/os":            value,
		"beta.kubernetes.io/arch":          value,
		"node.kubernetes.io/instance-type": value,
	}
	for _, k := range kubeletLabels {
		l[k] = value
	}
	return l
}

// reservedLabels are labels a kubelet may not set.
func reservedLabels(value string) map[string]string {
	return map[string]string{
		"node-restriction.kubernetes.io/foo":     value,
		"foo.node-restriction.kubernetes.io/foo": value,
		"other.kubernetes.io/foo":                value,
		"other.k8s.io/foo":                       value,
	}
}

func union(a, b map[string]string) map[string]string {
	out := maps.Clone(a)
	maps.Copy(out, b)
	return out
}

func TestNodes(t *testing.T) {
	p := newPlugin(t, newStore(), Options{})
	mine := testNode("n1")
	create := func(n *corev1.Node) *admission.Attributes {
		return req(admission.Create, "v1/nodes", "", "", n.Name, n, nil)
	}
	update := func(n, old *corev1.Node) *admission.Attributes {
		return req(admission.Update, "v1/nodes", "", "", n.Name, n, old)
	}
	const prefix = `nodes "n1" is forbidden: `
	const reserved = `foo.node-restriction.kubernetes.io/foo, node-restriction.kubernetes.io/foo, other.k8s.io/foo, other.kubernetes.io/foo`
	taintA := corev1.Taint{Key: "k", Value: "a", Effect: corev1.TaintEffectNoSchedule}
	taintB := corev1.Taint{Key: "k", Value: "b", Effect: corev1.TaintEffectNoSchedule}
	owner := metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "x", UID: "x"}
	runAdmit(t, p, []admitCase{
		{name: "create own node", a: create(mine)},
		{name: "create own node, name from the object", a: req(admission.Create, "v1/nodes", "", "", "", mine, nil)},
		{name: "create own node with taints", a: create(testNode("n1", withTaints(taintA)))},
		{name: "create own node with kubelet labels", a: create(testNode("n1", withLabels(allowedLabels("v"))))},
		{name: "create own node with owner references", a: create(testNode("n1", func(n *corev1.Node) { n.OwnerReferences = []metav1.OwnerReference{owner} }))},
		{name: "update own node", a: update(mine, mine)},
		{name: "update own node status", a: req(admission.Update, "v1/nodes", "status", "", "n1", mine, mine)},
		{name: "delete own node", a: req(admission.Delete, "v1/nodes", "", "", "n1", nil, mine)},

		{name: "create another node", a: create(testNode("n2")),
			want: `nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"`},
		{name: "create another node, name from the object", a: req(admission.Create, "v1/nodes", "", "", "", testNode("n2"), nil),
			want: `nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"`},
		{name: "update another node", a: update(testNode("n2"), testNode("n2")),
			want: `nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"`},
		{name: "update another node's status", a: req(admission.Update, "v1/nodes", "status", "", "n2", testNode("n2"), testNode("n2")),
			want: `nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"`},
		{name: "delete another node", a: req(admission.Delete, "v1/nodes", "", "", "n2", nil, testNode("n2")),
			want: `nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"`},

		{name: "create with configSource", a: create(testNode("n1", withConfigSource("a"))),
			want: prefix + `node "n1" is not allowed to create pods with a non-nil configSource`},
		{name: "set configSource", a: update(testNode("n1", withConfigSource("a")), mine),
			want: prefix + `node "n1" is not allowed to update configSource to a new non-nil configSource`},
		{name: "change configSource", a: update(testNode("n1", withConfigSource("b")), testNode("n1", withConfigSource("a"))),
			want: prefix + `node "n1" is not allowed to update configSource to a new non-nil configSource`},
		{name: "keep configSource", a: update(testNode("n1", withConfigSource("a")), testNode("n1", withConfigSource("a")))},
		{name: "drop configSource", a: update(mine, testNode("n1", withConfigSource("a")))},

		{name: "keep taints", a: update(testNode("n1", withTaints(taintA)), testNode("n1", withTaints(taintA)))},
		{name: "nil and empty taints are equal", a: update(testNode("n1", withTaints()), mine)},
		{name: "add a taint", a: update(testNode("n1", withTaints(taintA)), mine),
			want: prefix + `node "n1" is not allowed to modify taints`},
		{name: "remove a taint", a: update(mine, testNode("n1", withTaints(taintA))),
			want: prefix + `node "n1" is not allowed to modify taints`},
		{name: "change a taint", a: update(testNode("n1", withTaints(taintB)), testNode("n1", withTaints(taintA))),
			want: prefix + `node "n1" is not allowed to modify taints`},
		{name: "taint through status", a: req(admission.Update, "v1/nodes", "status", "", "n1", mine, testNode("n1", withTaints(taintA))),
			want: prefix + `node "n1" is not allowed to modify taints`},

		{name: "add an owner reference", a: update(testNode("n1", func(n *corev1.Node) { n.OwnerReferences = []metav1.OwnerReference{owner} }), mine),
			want: prefix + `node "n1" is not allowed to modify ownerReferences`},
		{name: "remove an owner reference", a: update(mine, testNode("n1", func(n *corev1.Node) { n.OwnerReferences = []metav1.OwnerReference{owner} })),
			want: prefix + `node "n1" is not allowed to modify ownerReferences`},

		{name: "create with reserved labels", a: create(testNode("n1", withLabels(union(allowedLabels("v"), reservedLabels("v"))))),
			want: prefix + `node "n1" is not allowed to set the following labels: ` + reserved},
		{name: "add kubelet labels", a: update(testNode("n1", withLabels(allowedLabels("v"))), mine)},
		{name: "remove kubelet labels", a: update(mine, testNode("n1", withLabels(allowedLabels("v"))))},
		{name: "change kubelet labels", a: update(testNode("n1", withLabels(allowedLabels("b"))), testNode("n1", withLabels(allowedLabels("a"))))},
		{name: "keep reserved labels", a: update(testNode("n1", withLabels(union(allowedLabels("v"), reservedLabels("v")))), testNode("n1", withLabels(reservedLabels("v"))))},
		{name: "remove kubelet labels keeping reserved ones", a: update(testNode("n1", withLabels(reservedLabels("v"))), testNode("n1", withLabels(union(allowedLabels("v"), reservedLabels("v")))))},
		{name: "add reserved labels", a: update(testNode("n1", withLabels(reservedLabels("v"))), mine),
			want: prefix + `is not allowed to modify labels: ` + reserved},
		{name: "remove reserved labels", a: update(mine, testNode("n1", withLabels(reservedLabels("v")))),
			want: prefix + `is not allowed to modify labels: ` + reserved},
		{name: "change reserved labels", a: update(testNode("n1", withLabels(reservedLabels("new"))), testNode("n1", withLabels(reservedLabels("old")))),
			want: prefix + `is not allowed to modify labels: ` + reserved},

		{name: "create, not a node", a: req(admission.Create, "v1/nodes", "", "", "n1", &corev1.Pod{}, nil),
			want: prefix + `unexpected type *v1.Pod`},
		{name: "update, old object missing", a: req(admission.Update, "v1/nodes", "", "", "n1", mine, nil),
			want: prefix + `unexpected type <nil>`},
	})
}

func TestForbiddenLabels(t *testing.T) {
	cases := []struct {
		key       string
		forbidden bool
	}{
		{"foo", false},
		{"example.com/foo", false},
		{"kubernetes.io/hostname", false},
		{"kubernetes.io/os", false},
		{"kubernetes.io/arch", false},
		{"beta.kubernetes.io/instance-type", false},
		{"node.kubernetes.io/instance-type", false},
		{"topology.kubernetes.io/zone", false},
		{"topology.kubernetes.io/region", false},
		{"failure-domain.beta.kubernetes.io/zone", false},
		{"failure-domain.beta.kubernetes.io/region", false},
		{"beta.kubernetes.io/os", false},
		{"beta.kubernetes.io/arch", false},
		{"kubelet.kubernetes.io/anything", false},
		{"x.kubelet.kubernetes.io/anything", false},
		{"node.kubernetes.io/anything", false},
		{"x.node.kubernetes.io/anything", false},
		{"kubernetes.io.example.com/x", false},
		{"k8s.io.example.com/x", false},
		{"node-restriction.kubernetes.io/x", true},
		{"x.node-restriction.kubernetes.io/x", true},
		{"kubernetes.io/role", true},
		{"node-role.kubernetes.io/worker", true},
		{"topology.kubernetes.io/rack", true},
		{"k8s.io/x", true},
		{"x.k8s.io/x", true},
		{"beta.kubernetes.io/fluentd-ds-ready", true},
	}
	for _, tc := range cases {
		t.Run(tc.key, func(t *testing.T) {
			got := len(forbiddenLabels([]string{tc.key})) == 1
			if got != tc.forbidden {
				t.Errorf("forbidden(%q) = %v, want %v", tc.key, got, tc.forbidden)
			}
		})
	}
}

func TestModifiedLabels(t *testing.T) {
	got := modifiedLabels(map[string]string{"same": "1", "changed": "1", "added": "1"}, map[string]string{"same": "1", "changed": "2", "removed": "1"})
	want := []string{"added", "changed", "removed"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("modifiedLabels (-want +got):\n%s", diff)
	}
	if got := modifiedLabels(nil, map[string]string{}); len(got) != 0 {
		t.Errorf("modifiedLabels(nil, {}) = %v, want none", got)
	}
}
