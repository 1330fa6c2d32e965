package serviceaccount

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/controllers/controllertest"
	"github.com/portcullis/portcullis/internal/controllers/workqueue"
)

var quiet = slog.New(slog.DiscardHandler)

// fake is a Reader over maps and a Creator that records what it is
// asked to create and answers with createErr.
type fake struct {
	namespaces map[string]*corev1.Namespace
	accounts   map[string]bool // "ns/name"
	readErr    error
	createErr  error
	created    []string
}

func (f *fake) GetNamespace(_ context.Context, name string) (*corev1.Namespace, error) {
	if ns, ok := f.namespaces[name]; ok {
		return ns, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
}

func (f *fake) GetServiceAccount(_ context.Context, ns, name string) (*corev1.ServiceAccount, error) {
	if f.readErr != nil {
		return nil, f.readErr
	}
	if f.accounts[ns+"/"+name] {
		return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "serviceaccounts"}, name)
}

func (f *fake) Create(_ context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	sa := obj.(*corev1.ServiceAccount)
	if diff := cmp.Diff(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa.Name, Namespace: sa.Namespace}}, sa); diff != "" {
		return nil, fmt.Errorf("created account has more than its name: %s", diff)
	}
	f.created = append(f.created, fmt.Sprintf("%s/%s by %s", sa.Namespace, sa.Name, manager))
	return obj, f.createErr
}

func namespace(name string, phase corev1.NamespacePhase) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NamespaceStatus{Phase: phase}}
}

func TestSync(t *testing.T) {
	terminating := apierrors.NewForbidden(schema.GroupResource{Resource: "serviceaccounts"}, "default", errors.New("being terminated"))
	terminating.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}
	for _, tc := range []struct {
		name        string
		ns          *corev1.Namespace
		hasAccount  bool
		readErr     error
		createErr   error
		wantCreated []string
		wantErr     string
	}{
		{name: "an active namespace without the account", ns: namespace("a", corev1.NamespaceActive), wantCreated: []string{"a/default by kube-controller-manager"}},
		{name: "an active namespace with the account", ns: namespace("a", corev1.NamespaceActive), hasAccount: true},
		{name: "a terminating namespace", ns: namespace("a", corev1.NamespaceTerminating)},
		{name: "a namespace without a phase is not active", ns: namespace("a", "")},
		{name: "a namespace that is gone"},
		{name: "a failed read", ns: namespace("a", corev1.NamespaceActive), readErr: errors.New("boom"), wantErr: "boom"},
		{
			name: "someone else created it first", ns: namespace("a", corev1.NamespaceActive),
			createErr:   apierrors.NewAlreadyExists(schema.GroupResource{Resource: "serviceaccounts"}, "default"),
			wantCreated: []string{"a/default by kube-controller-manager"},
		},
		{
			name: "the namespace began terminating", ns: namespace("a", corev1.NamespaceActive), createErr: terminating,
			wantCreated: []string{"a/default by kube-controller-manager"},
		},
		{
			name: "a failed create", ns: namespace("a", corev1.NamespaceActive), createErr: apierrors.NewInternalError(errors.New("boom")),
			wantCreated: []string{"a/default by kube-controller-manager"},
			wantErr:     "creating service account a/default: Internal error occurred: boom",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fake{namespaces: map[string]*corev1.Namespace{}, accounts: map[string]bool{}, readErr: tc.readErr, createErr: tc.createErr}
			if tc.ns != nil {
				f.namespaces[tc.ns.Name] = tc.ns
			}
			if tc.hasAccount {
				f.accounts["a/default"] = true
			}
			c := &Controller{read: f, create: f, log: quiet, q: workqueue.New()}
			err := c.sync(context.Background(), "a")
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tc.wantErr {
				t.Errorf("error %q, want %q", gotErr, tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantCreated, f.created); diff != "" {
				t.Errorf("created (-want +got):\n%s", diff)
			}
		})
	}
}

// flaky fails its first create, then creates through the API.
type flaky struct {
	next  Creator
	mu    sync.Mutex
	fails int
}

func (f *flaky) Create(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	f.mu.Lock()
	fail := f.fails > 0
	f.fails--
	f.mu.Unlock()
	if fail {
		return nil, apierrors.NewServiceUnavailable("not now")
	}
	return f.next.Create(ctx, obj, manager)
}

func TestController(t *testing.T) {
	env := controllertest.New(t)
	ctx := context.Background()
	newNamespace := func(name string) {
		t.Helper()
		if _, err := env.API.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, "test"); err != nil {
			t.Fatal(err)
		}
	}
	account := func(ns string) (*corev1.ServiceAccount, error) {
		return env.Objects.GetServiceAccount(ctx, ns, "default")
	}
	exists := func(ns string) func() (bool, string) {
		return func() (bool, string) {
			_, err := account(ns)
			return err == nil, fmt.Sprintf("default account in %s: %v", ns, err)
		}
	}
	newNamespace("before")
	c, err := New(env.Objects, &flaky{next: env.API, fails: 1}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	controllertest.Run(t, c.Run)

	// The first create fails and is retried.
	controllertest.Eventually(t, exists("before"))
	sa, err := account("before")
	if err != nil {
		t.Fatal(err)
	}
	// Nothing but a name: no field is owned, so no manager is recorded
	// (kube-controller-manager's default accounts have none either).
	if diff := cmp.Diff(&corev1.ServiceAccount{TypeMeta: metav1.TypeMeta{Kind: "ServiceAccount", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "before"}}, sa,
		cmpopts.IgnoreFields(metav1.ObjectMeta{}, "UID", "ResourceVersion", "CreationTimestamp")); diff != "" {
		t.Errorf("created account (-want +got):\n%s", diff)
	}

	newNamespace("after")
	controllertest.Eventually(t, exists("after"))

	// A deleted account comes back, as a new object.
	sa, err = account("after")
	if err != nil {
		t.Fatal(err)
	}
	if err := env.API.Remove(ctx, schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, "after", "default"); err != nil {
		t.Fatal(err)
	}
	old := sa.UID
	controllertest.Eventually(t, func() (bool, string) {
		sa, err := account("after")
		if err != nil {
			return false, err.Error()
		}
		return sa.UID != old, "the deleted account is still there"
	})
}
