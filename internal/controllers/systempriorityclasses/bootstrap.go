package systempriorityclasses

import (
	"context"
	"errors"
	"fmt"

	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Manager is the field manager of the bootstrap writes, kube-apiserver's
// own loopback client.
const Manager = "kube-apiserver"

var priorityClasses = schema.GroupVersionResource{Group: schedulingv1.GroupName, Version: "v1", Resource: "priorityclasses"}

// Reader reads stored objects (objects.Objects).
type Reader interface {
	Get(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) (runtime.Object, error)
}

// Creator writes through the API (the REST handler's in-process client).
type Creator interface {
	Create(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
}

// Classes returns the system priority classes, freshly allocated.
func Classes() []*schedulingv1.PriorityClass {
	return []*schedulingv1.PriorityClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "system-node-critical"}, Value: 2000001000,
			Description: "Used for system critical pods that must not be moved from their current node."},
		{ObjectMeta: metav1.ObjectMeta{Name: "system-cluster-critical"}, Value: 2000000000,
			Description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."},
	}
}

// Run creates the system priority classes that are missing.
func Run(ctx context.Context, r Reader, w Creator) error {
	var errs []error
	for _, pc := range Classes() {
		_, err := r.Get(ctx, priorityClasses, "", pc.Name)
		if err == nil {
			continue
		}
		if !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("reading priority class %s: %w", pc.Name, err))
			continue
		}
		if _, err := w.Create(ctx, pc, Manager); err != nil && !apierrors.IsAlreadyExists(err) {
			errs = append(errs, fmt.Errorf("creating priority class %s: %w", pc.Name, err))
		}
	}
	return errors.Join(errs...)
}
