package noderestriction

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/admission"
)

func TestNew(t *testing.T) {
	if _, err := New(nil, Options{}); !errors.Is(err, ErrNoGetter) {
		t.Errorf("New(nil) error = %v, want ErrNoGetter", err)
	}
	if _, err := New((*store)(nil), Options{}); !errors.Is(err, ErrNoGetter) {
		t.Errorf("New((*store)(nil)) error = %v, want ErrNoGetter", err)
	}
	var _ admission.Mutator = newPlugin(t, newStore(), Options{})
}

func TestWhoIsRestricted(t *testing.T) {
	p := newPlugin(t, newStore(), Options{})
	normalPod := func(u user.Info) *admission.Attributes {
		return by(u, req(admission.Create, "v1/pods", "", "ns", "p", boundPod("p", "n2"), nil))
	}
	const notMirror = `pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods`
	runAdmit(t, p, []admitCase{
		{name: "node", a: normalPod(node1), want: `pods "p" is forbidden: ` + notMirror},
		{name: "another user", a: normalPod(bob)},
		{name: "node name without the nodes group", a: normalPod(&user.DefaultInfo{Name: "system:node:n1"})},
		{name: "nodes group without a node name", a: normalPod(&user.DefaultInfo{Name: "kubelet", Groups: []string{user.NodesGroup}})},
		{name: "node prefix elsewhere in the name", a: normalPod(&user.DefaultInfo{Name: "x-system:node:n1", Groups: []string{user.NodesGroup}})},
		{name: "node with an empty name", a: normalPod(&user.DefaultInfo{Name: "system:node:", Groups: []string{user.NodesGroup}}),
			want: `pods "p" is forbidden: could not determine node from user "system:node:"`},
		{name: "no user", a: normalPod(nil)},
		{name: "nil user", a: normalPod((*user.DefaultInfo)(nil))},
	})
}

func TestWhatIsRestricted(t *testing.T) {
	p := newPlugin(t, newStore(), Options{})
	runAdmit(t, p, []admitCase{
		{name: "connect to another node's pod", a: req(admission.Connect, "v1/pods", "exec", "ns", "theirs", nil, nil)},
		{name: "unknown operation", a: req("PATCH", "v1/pods", "", "ns", "theirs", nil, nil)},
		{name: "config maps", a: req(admission.Create, "v1/configmaps", "", "ns", "cm", &corev1.ConfigMap{}, nil)},
		{name: "events", a: req(admission.Create, "v1/events", "", "ns", "e", &corev1.Event{}, nil)},
		{name: "pods of another group", a: req(admission.Create, "example.com/v1/pods", "", "ns", "p", &corev1.Pod{}, nil)},
		{name: "deleting a config map", a: req(admission.Delete, "v1/configmaps", "", "ns", "cm", nil, nil)},
	})
	if err := p.Admit(context.Background(), nil); err != nil {
		t.Errorf("Admit(nil) = %v", err)
	}
}

func TestForbidden(t *testing.T) {
	t.Run("forbidden errors are not wrapped twice", func(t *testing.T) {
		inner := apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "s", errBoom)
		if got := forbidden(&admission.Attributes{Name: "p"}, inner); got != error(inner) {
			t.Errorf("forbidden() = %v, want the inner error", got)
		}
	})
}

func TestGetterFuncs(t *testing.T) {
	ctx := context.Background()
	var g GetterFuncs
	calls := []func() error{
		func() error { _, err := g.GetPod(ctx, "ns", "p"); return err },
		func() error { _, err := g.GetNode(ctx, "n"); return err },
		func() error { _, err := g.GetServiceAccount(ctx, "ns", "s"); return err },
		func() error { _, err := g.GetPersistentVolumeClaim(ctx, "ns", "c"); return err },
		func() error { _, err := g.GetPersistentVolume(ctx, "v"); return err },
		func() error { _, err := g.GetCSIDriver(ctx, "d"); return err },
	}
	for i, call := range calls {
		if err := call(); !errors.Is(err, ErrNotSupported) {
			t.Errorf("lookup %d on empty GetterFuncs = %v, want ErrNotSupported", i, err)
		}
	}

	// A nil object without an error is a missing one.
	g.Pod = func(context.Context, string, string) (*corev1.Pod, error) { return nil, nil }
	p, err := New(g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = p.Admit(ctx, req(admission.Delete, "v1/pods", "", "ns", "p", nil, nil))
	checkErr(t, err, `pod "p" not found`, false)

	// An unsupported lookup refuses rather than admits.
	p, err = New(GetterFuncs{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = p.Admit(ctx, req(admission.Delete, "v1/pods", "", "ns", "p", nil, nil))
	checkErr(t, err, `pods "p" is forbidden: pods: lookup not supported`, false)
}
