package apiservices

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/registry"
)

// Manager is the field manager of the writes.
const Manager = "portcullis-apiservice-autoregistration"

// The label kube-apiserver marks its own APIServices with, and its values.
const (
	AutomanagedLabel = "kube-aggregator.kubernetes.io/automanaged"
	onStart          = "onstart"
	managed          = "true"
)

var apiServices = schema.GroupVersionResource{Group: apiregistrationv1.GroupName, Version: "v1", Resource: "apiservices"}

// priority is an APIService's place in discovery.
type priority struct{ group, version int32 }

// builtinPriorities are kube-apiserver 1.37's, by group version.
var builtinPriorities = map[schema.GroupVersion]priority{
	{Version: "v1"}:                                        {18000, 1},
	{Group: "apps", Version: "v1"}:                         {17800, 15},
	{Group: "events.k8s.io", Version: "v1"}:                {17750, 15},
	{Group: "authentication.k8s.io", Version: "v1"}:        {17700, 15},
	{Group: "authorization.k8s.io", Version: "v1"}:         {17600, 15},
	{Group: "autoscaling", Version: "v1"}:                  {17500, 15},
	{Group: "autoscaling", Version: "v2"}:                  {17500, 30},
	{Group: "batch", Version: "v1"}:                        {17400, 15},
	{Group: "certificates.k8s.io", Version: "v1"}:          {17300, 15},
	{Group: "networking.k8s.io", Version: "v1"}:            {17200, 15},
	{Group: "policy", Version: "v1"}:                       {17100, 15},
	{Group: "rbac.authorization.k8s.io", Version: "v1"}:    {17000, 15},
	{Group: "storage.k8s.io", Version: "v1"}:               {16800, 15},
	{Group: "admissionregistration.k8s.io", Version: "v1"}: {16700, 15},
	{Group: "apiextensions.k8s.io", Version: "v1"}:         {16700, 15},
	{Group: "scheduling.k8s.io", Version: "v1"}:            {16600, 15},
	{Group: "coordination.k8s.io", Version: "v1"}:          {16500, 15},
	{Group: "node.k8s.io", Version: "v1"}:                  {16300, 15},
	{Group: "discovery.k8s.io", Version: "v1"}:             {16200, 15},
	{Group: "resource.k8s.io", Version: "v1"}:              {16200, 21},
	{Group: "flowcontrol.apiserver.k8s.io", Version: "v1"}: {16100, 21},
	{Group: "storagemigration.k8s.io", Version: "v1"}:      {15800, 15},
}

// customPriority is every CRD version's, as kube-apiserver registers them:
// low, and ordered among themselves by version name.
var customPriority = priority{1000, 100}

// fallbackPriority is for a built-in group version missing from the table.
var fallbackPriority = priority{1000, 15}

// Writer writes through the API (the REST handler's in-process client).
type Writer interface {
	Apply(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
	Remove(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) error
}

// Controller registers the served group versions.
type Controller struct {
	objs *objects.Objects
	reg  *registry.Registry
	w    Writer
	log  *slog.Logger
	wake chan struct{}
}

// New returns the controller; Sync registers once, Run on every Changed.
func New(objs *objects.Objects, reg *registry.Registry, w Writer, log *slog.Logger) *Controller {
	return &Controller{objs: objs, reg: reg, w: w, log: log, wake: make(chan struct{}, 1)}
}

// Changed tells the controller the served resources changed.
func (c *Controller) Changed() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// desired returns the APIServices the registry calls for, by name.
func (c *Controller) desired() map[string]*apiregistrationv1.APIService {
	out := map[string]*apiregistrationv1.APIService{}
	for _, r := range c.reg.All() {
		gv := r.GVR.GroupVersion()
		if gv.Group == apiregistrationv1.GroupName {
			continue // the aggregator's own group has none
		}
		label, prio := onStart, fallbackPriority
		if r.Custom != nil {
			label, prio = managed, customPriority
		} else if p, ok := builtinPriorities[gv]; ok {
			prio = p
		}
		name := gv.Version + "." + gv.Group
		out[name] = &apiregistrationv1.APIService{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{AutomanagedLabel: label}},
			Spec:       apiregistrationv1.APIServiceSpec{Group: gv.Group, Version: gv.Version, GroupPriorityMinimum: prio.group, VersionPriority: prio.version},
		}
	}
	return out
}

// Sync creates or corrects the APIService of every served group version and
// deletes the automanaged ones of custom group versions no longer served.
func (c *Controller) Sync(ctx context.Context) error {
	want := c.desired()
	list, err := c.objs.List(ctx, apiServices, "", labels.Everything())
	if err != nil {
		return fmt.Errorf("listing APIServices: %w", err)
	}
	have := map[string]*apiregistrationv1.APIService{}
	for _, obj := range list {
		s := obj.(*apiregistrationv1.APIService)
		have[s.Name] = s
	}
	var errs []error
	for name, w := range want {
		h, ok := have[name]
		if !ok {
			if _, err := c.w.Apply(ctx, w, Manager); err != nil && !apierrors.IsAlreadyExists(err) {
				errs = append(errs, fmt.Errorf("creating APIService %s: %w", name, err))
			}
			continue
		}
		if h.Labels[AutomanagedLabel] == w.Labels[AutomanagedLabel] && equality.Semantic.DeepEqual(h.Spec, w.Spec) {
			continue
		}
		// Guarded by the stored resourceVersion: a concurrent change is
		// looked at on the next sync.
		revised := h.DeepCopy()
		revised.Spec = w.Spec
		if revised.Labels == nil {
			revised.Labels = map[string]string{}
		}
		revised.Labels[AutomanagedLabel] = w.Labels[AutomanagedLabel]
		if _, err := c.w.Apply(ctx, revised, Manager); err != nil && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("updating APIService %s: %w", name, err))
		}
	}
	for name, h := range have {
		if _, ok := want[name]; ok || h.Labels[AutomanagedLabel] != managed {
			continue
		}
		if err := c.w.Remove(ctx, apiServices, "", name); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting APIService %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// Run syncs on every change of the served resources until ctx is done,
// retrying a failed sync.
func (c *Controller) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	retry := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		}
		err := c.Sync(ctx)
		if err == nil || ctx.Err() != nil {
			retry = 0
			continue
		}
		retry = min(max(2*retry, 100*time.Millisecond), time.Minute)
		c.log.Warn("registering APIServices failed", "retry", retry, "err", err)
		delay := retry
		wg.Go(func() {
			select {
			case <-ctx.Done():
			case <-time.After(delay):
				c.Changed()
			}
		})
	}
}
