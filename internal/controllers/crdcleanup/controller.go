package crdcleanup

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/informer"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// Finalizer is the finalizer this controller removes.
const Finalizer = registry.CRDCleanupFinalizer

// Manager is the field manager of the controller's writes: kube-apiserver
// writes its CRD controllers' changes through its loopback client, whose
// user agent names the binary.
const Manager = "kube-apiserver"

// retryAfter is how soon a CRD whose objects are still held back by their
// own finalizers is looked at again.
const retryAfter = time.Second

// API is the part of the REST handlers the controller writes through.
type API interface {
	Apply(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
	ApplyStatus(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
	Remove(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) error
}

// Controller removes the custom resources of deleted CRDs.
type Controller struct {
	objs    *objects.Objects
	api     API
	crds    *informer.Set[*apiextensionsv1.CustomResourceDefinition]
	changed <-chan struct{}
	log     *slog.Logger
	now     func() time.Time
}

// New returns the controller over the CRDs of crds (an informer set its
// builder runs); Run starts it.
func New(crds *informer.Set[*apiextensionsv1.CustomResourceDefinition], objs *objects.Objects, api API, log *slog.Logger) *Controller {
	return &Controller{objs: objs, api: api, crds: crds, changed: crds.Subscribe(), log: log, now: time.Now}
}

// Run cleans up deleted CRDs until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	retry := time.NewTimer(retryAfter)
	defer retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.changed:
		case <-retry.C:
		}
		again := false
		for _, crd := range c.crds.List() {
			if crd.DeletionTimestamp == nil || !slices.Contains(crd.Finalizers, Finalizer) {
				continue
			}
			done, err := c.finalize(ctx, crd)
			if err != nil && ctx.Err() == nil {
				c.log.Warn("removing the custom resources of a deleted CRD", "crd", crd.Name, "err", err)
			}
			again = again || !done
		}
		if again {
			retry.Reset(retryAfter)
		}
	}
}

// finalize deletes what is left of crd's objects and, when nothing is,
// removes the finalizer. done reports whether the CRD needs no more work.
func (c *Controller) finalize(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) (done bool, err error) {
	if !hasCondition(crd, "InstanceDeletionInProgress") {
		crd, err = c.setTerminating(ctx, crd, metav1.ConditionTrue, "InstanceDeletionInProgress", "CustomResource deletion is in progress")
		if err != nil {
			return false, err
		}
	}
	remaining, err := c.deleteObjects(ctx, crd)
	if err != nil {
		if _, serr := c.setTerminating(ctx, crd, metav1.ConditionTrue, "InstanceDeletionFailed", fmt.Sprintf("could not list instances: %v", err)); serr != nil {
			c.log.Debug("recording a failed CRD cleanup", "crd", crd.Name, "err", serr)
		}
		return false, err
	}
	if remaining > 0 {
		return false, nil
	}
	crd, err = c.setTerminating(ctx, crd, metav1.ConditionFalse, "InstanceDeletionCompleted", "removed all instances")
	if err != nil {
		return false, err
	}
	crd = crd.DeepCopy()
	crd.Finalizers = slices.DeleteFunc(crd.Finalizers, func(f string) bool { return f == Finalizer })
	if _, err := c.api.Apply(ctx, crd, Manager); err != nil && !apierrors.IsNotFound(err) {
		return false, err
	}
	return true, nil
}

// deleteObjects asks the API to delete every object of crd and returns
// how many are still there (being deleted or held by finalizers).
func (c *Controller) deleteObjects(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) (int, error) {
	res := c.servedResource(crd)
	if res == nil {
		// Never served: there is nothing the API could have stored,
		// unless an earlier CRD of the same names left objects behind.
		prefix := c.objs.Registry().Root() + crd.Spec.Group + "/" + crd.Status.AcceptedNames.Plural + "/"
		if crd.Status.AcceptedNames.Plural == "" {
			return 0, nil
		}
		out, err := c.objs.Store().List(ctx, prefix, storage.ListOptions{Limit: 1})
		if err != nil {
			return 0, err
		}
		return len(out.KVs), nil
	}
	items, err := c.objs.List(ctx, res.GVR, "", nil)
	if err != nil {
		return 0, err
	}
	for _, obj := range items {
		m, err := meta.Accessor(obj)
		if err != nil {
			return 0, err
		}
		if m.GetDeletionTimestamp() != nil {
			continue
		}
		if err := c.api.Remove(ctx, res.GVR, m.GetNamespace(), m.GetName()); err != nil && !apierrors.IsNotFound(err) {
			return 0, err
		}
	}
	left, err := c.objs.List(ctx, res.GVR, "", nil)
	if err != nil {
		return 0, err
	}
	return len(left), nil
}

// servedResource finds a served version of crd's resource, the storage
// version's when it is served.
func (c *Controller) servedResource(crd *apiextensionsv1.CustomResourceDefinition) *registry.Resource {
	var found *registry.Resource
	for _, v := range crd.Spec.Versions {
		gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Status.AcceptedNames.Plural}
		res, ok := c.objs.Lookup(gvr)
		if !ok || res.Custom == nil || res.Custom.UID != crd.UID {
			continue
		}
		if v.Storage || found == nil {
			found = res
		}
	}
	return found
}

func (c *Controller) setTerminating(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, status metav1.ConditionStatus, reason, message string) (*apiextensionsv1.CustomResourceDefinition, error) {
	crd = crd.DeepCopy()
	cond := apiextensionsv1.CustomResourceDefinitionCondition{Type: apiextensionsv1.Terminating,
		Status: apiextensionsv1.ConditionStatus(status), Reason: reason, Message: message,
		LastTransitionTime: metav1.NewTime(c.now().Truncate(time.Second))}
	replaced := false
	for i, old := range crd.Status.Conditions {
		if old.Type == apiextensionsv1.Terminating {
			if old.Status == cond.Status {
				cond.LastTransitionTime = old.LastTransitionTime
			}
			crd.Status.Conditions[i] = cond
			replaced = true
		}
	}
	if !replaced {
		crd.Status.Conditions = append(crd.Status.Conditions, cond)
	}
	out, err := c.api.ApplyStatus(ctx, crd, Manager)
	if err != nil {
		return nil, err
	}
	return out.(*apiextensionsv1.CustomResourceDefinition), nil
}

func hasCondition(crd *apiextensionsv1.CustomResourceDefinition, reason string) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Terminating && c.Reason == reason {
			return true
		}
	}
	return false
}
