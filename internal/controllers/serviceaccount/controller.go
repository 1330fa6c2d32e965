package serviceaccount

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/controllers/workqueue"
	"github.com/portcullis/portcullis/internal/informer"
	"github.com/portcullis/portcullis/internal/objects"
)

// Manager is the field manager of the accounts the controller creates:
// kube-controller-manager creates them without one, so the server names
// the manager after its user agent.
const Manager = "kube-controller-manager"

// Ensured are the accounts every active namespace has, as
// kube-controller-manager's defaults list them.
var Ensured = []string{"default"}

// Creator creates objects through the API (the REST handler's in-process
// client).
type Creator interface {
	Create(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
}

// Reader reads the objects a sync decides on, from storage rather than
// an informer's cache, so that an account created a moment ago is seen.
type Reader interface {
	GetNamespace(ctx context.Context, name string) (*corev1.Namespace, error)
	GetServiceAccount(ctx context.Context, ns, name string) (*corev1.ServiceAccount, error)
}

// Controller creates the ensured service accounts.
type Controller struct {
	read       Reader
	create     Creator
	log        *slog.Logger
	namespaces *informer.Informer
	accounts   *informer.Informer
	q          *workqueue.Queue
}

var (
	namespacesGVR      = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	serviceAccountsGVR = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
)

// New returns the controller over the namespaces and service accounts in
// objs; Run starts it.
func New(objs *objects.Objects, create Creator, log *slog.Logger) (*Controller, error) {
	nsRes, ok := objs.Lookup(namespacesGVR)
	if !ok {
		return nil, fmt.Errorf("serviceaccount controller: %s is not served", namespacesGVR)
	}
	saRes, ok := objs.Lookup(serviceAccountsGVR)
	if !ok {
		return nil, fmt.Errorf("serviceaccount controller: %s is not served", serviceAccountsGVR)
	}
	c := &Controller{read: objs, create: create, log: log, q: workqueue.New()}
	// Every namespace seen, new or changed, is looked at; of the
	// accounts only deletions matter: one of the ensured may be gone.
	c.namespaces = informer.New(objs.Store(), nsRes, objs.Decode, informer.HandlerFuncs{
		UpsertFunc: func(obj runtime.Object) {
			if ns, ok := obj.(*corev1.Namespace); ok {
				c.q.Add(ns.Name)
			}
		},
		DeleteFunc: func(runtime.Object) {},
	}, log)
	c.accounts = informer.New(objs.Store(), saRes, objs.Decode, informer.HandlerFuncs{
		UpsertFunc: func(runtime.Object) {},
		DeleteFunc: func(obj runtime.Object) {
			if sa, ok := obj.(*corev1.ServiceAccount); ok {
				c.q.Add(sa.Namespace)
			}
		},
	}, log)
	return c, nil
}

// Run follows namespaces and service accounts and creates the missing
// accounts until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { c.namespaces.Run(ctx) })
	wg.Go(func() { c.accounts.Run(ctx) })
	c.q.Work(ctx, c.sync, func(ns string, retry time.Duration, err error) {
		c.log.Warn("service account controller: syncing namespace failed", "namespace", ns, "retry", retry, "err", err)
	})
}

// sync creates the ensured accounts that namespace ns lacks. Only an
// active namespace gets them: a terminating one is being emptied. A
// create that finds the account there, or the namespace terminating by
// then, has nothing left to do.
func (c *Controller) sync(ctx context.Context, ns string) error {
	namespace, err := c.read.GetNamespace(ctx, ns)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if namespace.Status.Phase != corev1.NamespaceActive {
		return nil
	}
	var failures []error
	for _, name := range Ensured {
		_, err := c.read.GetServiceAccount(ctx, ns, name)
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
		_, err = c.create.Create(ctx, sa, Manager)
		if err != nil && !apierrors.IsAlreadyExists(err) && !apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			failures = append(failures, fmt.Errorf("creating service account %s/%s: %w", ns, name, err))
		}
	}
	return errors.Join(failures...)
}
