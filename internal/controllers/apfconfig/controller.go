package apfconfig

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/flowcontrol"
	"github.com/portcullis/portcullis/internal/informer"
	"github.com/portcullis/portcullis/internal/objects"
)

// The field managers of kube-apiserver's two APF controllers.
const (
	ProducerManager = "api-priority-and-fairness-config-producer-v1"
	ConsumerManager = "api-priority-and-fairness-config-consumer-v1"
)

// resync is how often the configuration is ensured again, as in
// kube-apiserver.
const resync = time.Minute

var (
	flowSchemas    = schema.GroupVersionResource{Group: flowcontrolv1.GroupName, Version: "v1", Resource: "flowschemas"}
	priorityLevels = schema.GroupVersionResource{Group: flowcontrolv1.GroupName, Version: "v1", Resource: "prioritylevelconfigurations"}
)

// Writer writes through the API (the REST handler's in-process client).
type Writer interface {
	Apply(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
	ApplyStatus(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
	Remove(ctx context.Context, gvr schema.GroupVersionResource, ns, name string) error
}

// Controller ensures the configuration and keeps the FlowSchemas' status.
type Controller struct {
	objs *objects.Objects
	w    Writer
	log  *slog.Logger
	now  func() time.Time

	informers []*informer.Informer
	wake      chan struct{}
}

// New returns the controller over the objects in objs; Ensure makes the
// configuration once, Run keeps it.
func New(objs *objects.Objects, w Writer, log *slog.Logger) *Controller {
	c := &Controller{objs: objs, w: w, log: log, now: time.Now, wake: make(chan struct{}, 1)}
	poke := func(runtime.Object) {
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
	for _, gvr := range []schema.GroupVersionResource{flowSchemas, priorityLevels} {
		res, _ := objs.Lookup(gvr)
		c.informers = append(c.informers, informer.New(objs.Store(), res, objs.Decode, informer.HandlerFuncs{UpsertFunc: poke, DeleteFunc: poke}, log))
	}
	return c
}

// Ensure creates what is missing of the configuration, restores what must
// not change and removes what is no longer suggested: suggested objects
// first, then mandatory ones, as kube-apiserver orders it.
func (c *Controller) Ensure(ctx context.Context) error {
	suggested, mandatory := flowcontrol.Suggested(), flowcontrol.Mandatory()
	for _, step := range []struct {
		config Configuration
		always bool
	}{{suggested, false}, {mandatory, true}} {
		for _, pl := range step.config.PriorityLevels {
			if err := c.ensureOne(ctx, priorityLevels, pl, step.always); err != nil {
				return err
			}
		}
		for _, fs := range step.config.FlowSchemas {
			if err := c.ensureOne(ctx, flowSchemas, fs, step.always); err != nil {
				return err
			}
		}
	}
	wanted := map[schema.GroupVersionResource]map[string]bool{flowSchemas: {}, priorityLevels: {}}
	for _, cfg := range []Configuration{suggested, mandatory} {
		for _, pl := range cfg.PriorityLevels {
			wanted[priorityLevels][pl.Name] = true
		}
		for _, fs := range cfg.FlowSchemas {
			wanted[flowSchemas][fs.Name] = true
		}
	}
	var errs []error
	for gvr, names := range wanted {
		errs = append(errs, c.removeUnwanted(ctx, gvr, names))
	}
	return errors.Join(errs...)
}

// Configuration is one set of bootstrap objects.
type Configuration = flowcontrol.Configuration

// ensureOne creates the bootstrap object or, when it exists, revises its
// spec and annotation: always for a mandatory object, for a suggested one
// only while it is marked for automatic update (or, unmarked, was never
// changed since its creation: generation 1).
func (c *Controller) ensureOne(ctx context.Context, gvr schema.GroupVersionResource, boot runtime.Object, always bool) error {
	bm, _ := metaOf(boot)
	stored, err := c.objs.Get(ctx, gvr, "", bm.GetName())
	if apierrors.IsNotFound(err) {
		_, err = c.w.Apply(ctx, boot, ProducerManager)
		if apierrors.IsAlreadyExists(err) {
			return nil // created meanwhile; the next pass revises it
		}
		if err != nil {
			return fmt.Errorf("creating %s %s: %w", gvr.Resource, bm.GetName(), err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s %s: %w", gvr.Resource, bm.GetName(), err)
	}
	sm, _ := metaOf(stored)
	update := always
	if !update {
		update = autoUpdate(sm)
	}
	annotate := true
	if v, ok := sm.GetAnnotations()[flowcontrolv1.AutoUpdateAnnotationKey]; ok {
		if b, err := strconv.ParseBool(v); err == nil && b == update {
			annotate = false
		}
	}
	respec := update && !sameSpec(boot, stored)
	if !annotate && !respec {
		return nil
	}
	revised := stored.DeepCopyObject()
	if respec {
		copySpec(revised, boot)
	}
	if annotate {
		rm, _ := metaOf(revised)
		a := rm.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		a[flowcontrolv1.AutoUpdateAnnotationKey] = strconv.FormatBool(update)
		rm.SetAnnotations(a)
	}
	// The stored resourceVersion guards the write: a concurrent change
	// wins and is looked at on the next pass.
	if _, err := c.w.Apply(ctx, revised, ProducerManager); err != nil && !apierrors.IsConflict(err) {
		return fmt.Errorf("updating %s %s: %w", gvr.Resource, bm.GetName(), err)
	}
	return nil
}

// autoUpdate reads the annotation; without a readable one, an object that
// was never changed may still be updated.
func autoUpdate(m metav1.Object) bool {
	if b, err := strconv.ParseBool(m.GetAnnotations()[flowcontrolv1.AutoUpdateAnnotationKey]); err == nil {
		return b
	}
	return m.GetGeneration() == 1
}

func (c *Controller) removeUnwanted(ctx context.Context, gvr schema.GroupVersionResource, wanted map[string]bool) error {
	list, err := c.objs.List(ctx, gvr, "", labels.Everything())
	if err != nil {
		return fmt.Errorf("listing %s: %w", gvr.Resource, err)
	}
	var errs []error
	for _, obj := range list {
		m, err := metaOf(obj)
		if err != nil || wanted[m.GetName()] {
			continue
		}
		// Only what the server itself manages goes: objects a user
		// created carry no annotation, or "false".
		if b, err := strconv.ParseBool(m.GetAnnotations()[flowcontrolv1.AutoUpdateAnnotationKey]); err != nil || !b {
			continue
		}
		if err := c.w.Remove(ctx, gvr, "", m.GetName()); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting %s %s: %w", gvr.Resource, m.GetName(), err))
		}
	}
	return errors.Join(errs...)
}

func metaOf(obj runtime.Object) (metav1.Object, error) {
	switch o := obj.(type) {
	case *flowcontrolv1.FlowSchema:
		return o, nil
	case *flowcontrolv1.PriorityLevelConfiguration:
		return o, nil
	}
	return nil, fmt.Errorf("apfconfig: unexpected %T", obj)
}

func sameSpec(boot, stored runtime.Object) bool {
	switch b := boot.(type) {
	case *flowcontrolv1.FlowSchema:
		return equality.Semantic.DeepEqual(b.Spec, stored.(*flowcontrolv1.FlowSchema).Spec)
	case *flowcontrolv1.PriorityLevelConfiguration:
		return equality.Semantic.DeepEqual(b.Spec, stored.(*flowcontrolv1.PriorityLevelConfiguration).Spec)
	}
	return true
}

func copySpec(into, from runtime.Object) {
	switch f := from.(type) {
	case *flowcontrolv1.FlowSchema:
		into.(*flowcontrolv1.FlowSchema).Spec = *f.Spec.DeepCopy()
	case *flowcontrolv1.PriorityLevelConfiguration:
		into.(*flowcontrolv1.PriorityLevelConfiguration).Spec = *f.Spec.DeepCopy()
	}
}

// Run keeps the configuration (every minute) and the FlowSchemas' Dangling
// condition (on every change of either kind) until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, in := range c.informers {
		wg.Go(func() { in.Run(ctx) })
	}
	tick := time.NewTicker(resync)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := c.Ensure(ctx); err != nil && ctx.Err() == nil {
				c.log.Warn("ensuring the API Priority and Fairness configuration failed", "err", err)
			}
			if err := c.syncStatus(ctx); err != nil && ctx.Err() == nil {
				c.log.Warn("writing FlowSchema status failed", "err", err)
			}
		case <-c.wake:
			if err := c.syncStatus(ctx); err != nil && ctx.Err() == nil {
				// Tried again on the next change or pass.
				c.log.Warn("writing FlowSchema status failed", "err", err)
			}
		}
	}
}

// syncStatus writes the Dangling condition of every FlowSchema whose
// condition does not say what is true now.
func (c *Controller) syncStatus(ctx context.Context) error {
	pls, err := c.objs.List(ctx, priorityLevels, "", labels.Everything())
	if err != nil {
		return err
	}
	exists := map[string]bool{}
	for _, obj := range pls {
		exists[obj.(*flowcontrolv1.PriorityLevelConfiguration).Name] = true
	}
	schemas, err := c.objs.List(ctx, flowSchemas, "", labels.Everything())
	if err != nil {
		return err
	}
	var errs []error
	for _, obj := range schemas {
		fs := obj.(*flowcontrolv1.FlowSchema)
		want := danglingCondition(fs.Spec.PriorityLevelConfiguration.Name, exists[fs.Spec.PriorityLevelConfiguration.Name])
		if have := conditionOf(fs); have != nil && have.Status == want.Status && have.Reason == want.Reason && have.Message == want.Message {
			continue
		}
		want.LastTransitionTime = metav1.NewTime(c.now())
		setCondition(fs, want)
		if _, err := c.w.ApplyStatus(ctx, fs, ConsumerManager); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("flow schema %s: %w", fs.Name, err))
		}
	}
	return errors.Join(errs...)
}

func danglingCondition(pl string, found bool) flowcontrolv1.FlowSchemaCondition {
	if found {
		return flowcontrolv1.FlowSchemaCondition{Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionFalse, Reason: "Found",
			Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q and it exists", pl)}
	}
	return flowcontrolv1.FlowSchemaCondition{Type: flowcontrolv1.FlowSchemaConditionDangling, Status: flowcontrolv1.ConditionTrue, Reason: "NotFound",
		Message: fmt.Sprintf("This FlowSchema references the PriorityLevelConfiguration object named %q but there is no such object", pl)}
}

func conditionOf(fs *flowcontrolv1.FlowSchema) *flowcontrolv1.FlowSchemaCondition {
	for i := range fs.Status.Conditions {
		if fs.Status.Conditions[i].Type == flowcontrolv1.FlowSchemaConditionDangling {
			return &fs.Status.Conditions[i]
		}
	}
	return nil
}

func setCondition(fs *flowcontrolv1.FlowSchema, c flowcontrolv1.FlowSchemaCondition) {
	if have := conditionOf(fs); have != nil {
		*have = c
		return
	}
	fs.Status.Conditions = append(fs.Status.Conditions, c)
}
