package bootstraprbac

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/authz/rbac"
)

// Manager is the field manager of the bootstrap writes.
const Manager = "portcullis-rbac-bootstrap"

// Reader reads stored objects (objects.Objects).
type Reader interface {
	Get(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) (runtime.Object, error)
}

// Writer writes through the API (the REST handler's in-process client).
type Writer interface {
	Apply(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
	Remove(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) error
}

// workers bound the writes in flight.
const workers = 8

// Run reconciles every bootstrap object with what is stored.
func Run(ctx context.Context, r Reader, w Writer) error {
	return reconcile(ctx, r, w, rbac.Bootstrap().Objects())
}

func reconcile(ctx context.Context, r Reader, w Writer, objects []runtime.Object) error {
	errs := make([]error, len(objects))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(objects) {
					return
				}
				errs[i] = reconcileOne(ctx, r, w, objects[i])
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// reconcileOne brings one bootstrap object to its desired state.
func reconcileOne(ctx context.Context, r Reader, w Writer, desired runtime.Object) error {
	m, err := meta.Accessor(desired)
	if err != nil {
		return err
	}
	gvr, err := resourceOf(desired)
	if err != nil {
		return err
	}
	existing, err := r.Get(ctx, gvr, m.GetNamespace(), m.GetName())
	if apierrors.IsNotFound(err) {
		existing, err = nil, nil
	}
	if err != nil {
		return fmt.Errorf("reading %s %s: %w", gvr.Resource, m.GetName(), err)
	}
	rec, err := rbac.Reconcile(existing, desired)
	if err != nil {
		return fmt.Errorf("reconciling %s %s: %w", gvr.Resource, m.GetName(), err)
	}
	switch rec.Action {
	case rbac.ActionCreate, rbac.ActionUpdate:
		_, err = w.Apply(ctx, rec.Object, Manager)
	case rbac.ActionRecreate:
		if err = w.Remove(ctx, gvr, m.GetNamespace(), m.GetName()); err == nil {
			rm, _ := meta.Accessor(rec.Object)
			rm.SetResourceVersion("")
			_, err = w.Apply(ctx, rec.Object, Manager)
		}
	}
	if err != nil {
		return fmt.Errorf("writing %s %s: %w", gvr.Resource, m.GetName(), err)
	}
	return nil
}

func resourceOf(obj runtime.Object) (schema.GroupVersionResource, error) {
	gvr := schema.GroupVersionResource{Group: rbacv1.GroupName, Version: "v1"}
	switch obj.(type) {
	case *rbacv1.ClusterRole:
		gvr.Resource = "clusterroles"
	case *rbacv1.ClusterRoleBinding:
		gvr.Resource = "clusterrolebindings"
	case *rbacv1.Role:
		gvr.Resource = "roles"
	case *rbacv1.RoleBinding:
		gvr.Resource = "rolebindings"
	default:
		return gvr, fmt.Errorf("bootstrap RBAC: %T is not an RBAC object", obj)
	}
	return gvr, nil
}
