package resourcequota

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/controllers/workqueue"
	"github.com/portcullis/portcullis/internal/informer"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/quota"
)

// Manager is the field manager of the status the controller writes:
// kube-controller-manager's, named after its user agent.
const Manager = "kube-controller-manager"

// ResyncPeriod is how often every quota is recalculated in full:
// kube-controller-manager's --resource-quota-sync-period default.
const ResyncPeriod = 5 * time.Minute

// Writer writes a quota's status through the API (the REST handler's
// in-process client), guarded by the object's resourceVersion.
type Writer interface {
	ApplyStatus(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
}

var quotasGVR = schema.GroupVersionResource{Version: "v1", Resource: "resourcequotas"}

// Controller keeps the status of every ResourceQuota current.
type Controller struct {
	objs     *objects.Objects
	write    Writer
	log      *slog.Logger
	registry *quota.Registry
	quotas   *informer.Informer
	q        *workqueue.Queue
	resync   time.Duration
	now      func() time.Time
	// contentPrefixes are the key prefixes of the resources in decoded.
	contentPrefixes []string

	mu sync.Mutex
	// known are the quotas last seen by the informer, by namespace and
	// name: what a replenishment looks at, and what a spec change is told by.
	known map[string]map[string]*corev1.ResourceQuota
}

// New returns the controller over the quotas and the objects they count
// in objs; Run starts it. The pod evaluator follows the defaults of
// kube-controller-manager's gates (PodLevelResources and
// PodLevelResourcesFixKubeletQOSClass on).
func New(objs *objects.Objects, w Writer, log *slog.Logger) (*Controller, error) {
	res, ok := objs.Lookup(quotasGVR)
	if !ok {
		return nil, fmt.Errorf("resourcequota controller: %s is not served", quotasGVR)
	}
	c := &Controller{
		objs: objs, write: w, log: log,
		registry: quota.NewRegistry(quota.PodOptions{PodLevelResources: true, PodLevelResourcesFixKubeletQOSClass: true}),
		q:        workqueue.New(),
		resync:   ResyncPeriod,
		now:      time.Now,
		known:    map[string]map[string]*corev1.ResourceQuota{},
	}
	for gr := range decoded {
		if r, ok := objs.Lookup(gr.WithVersion("v1")); ok {
			c.contentPrefixes = append(c.contentPrefixes, r.KeyPrefix())
		}
	}
	c.quotas = informer.New(objs.Store(), res, objs.Decode, informer.HandlerFuncs{UpsertFunc: c.upsertQuota, DeleteFunc: c.deleteQuota}, log)
	return c, nil
}

// Run follows the quotas and the objects they count, and keeps the
// quotas' status current until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { c.quotas.Run(ctx) })
	wg.Go(func() { c.followChanges(ctx) })
	wg.Go(func() {
		t := time.NewTicker(c.resync)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				c.enqueueAll()
			}
		}
	})
	c.q.Work(ctx, c.sync, func(key string, retry time.Duration, err error) {
		c.log.Warn("resource quota controller: syncing quota failed", "quota", key, "retry", retry, "err", err)
	})
}

func quotaKey(q *corev1.ResourceQuota) string { return q.Namespace + "/" + q.Name }

// upsertQuota queues a quota that is new or whose spec.hard changed. The
// controller's own status writes change neither, so they queue nothing;
// usage changes come through replenishment and the full resync.
func (c *Controller) upsertQuota(obj runtime.Object) {
	q, ok := obj.(*corev1.ResourceQuota)
	if !ok {
		return
	}
	c.mu.Lock()
	inNS := c.known[q.Namespace]
	if inNS == nil {
		inNS = map[string]*corev1.ResourceQuota{}
		c.known[q.Namespace] = inNS
	}
	old, seen := inNS[q.Name]
	inNS[q.Name] = q
	c.mu.Unlock()
	if !seen || !quota.Equals(old.Spec.Hard, q.Spec.Hard) {
		c.q.Add(quotaKey(q))
	}
}

// deleteQuota forgets the quota; its sync finds nothing to do.
func (c *Controller) deleteQuota(obj runtime.Object) {
	q, ok := obj.(*corev1.ResourceQuota)
	if !ok {
		return
	}
	c.mu.Lock()
	delete(c.known[q.Namespace], q.Name)
	if len(c.known[q.Namespace]) == 0 {
		delete(c.known, q.Namespace)
	}
	c.mu.Unlock()
	c.q.Add(quotaKey(q))
}

func (c *Controller) enqueueAll() {
	var keys []string
	c.mu.Lock()
	for _, inNS := range c.known {
		for _, q := range inNS {
			keys = append(keys, quotaKey(q))
		}
	}
	c.mu.Unlock()
	for _, k := range keys {
		c.q.Add(k)
	}
}

// replenish queues the quotas of ns that limit something gr is charged
// under, by their status.hard as kube-controller-manager looks.
func (c *Controller) replenish(gr schema.GroupResource, ns string) {
	e := c.registry.Get(gr)
	var keys []string
	c.mu.Lock()
	for _, q := range c.known[ns] {
		if len(e.MatchingResources(quota.ResourceNames(q.Status.Hard))) > 0 {
			keys = append(keys, quotaKey(q))
		}
	}
	c.mu.Unlock()
	for _, k := range keys {
		c.q.Add(k)
	}
}

// sync recalculates one quota from what is stored now and writes its
// status when it changed: hard as spec.hard, used for every name of hard
// that an evaluator charges. A name no evaluator charges, or whose
// evaluator failed, keeps the used amount the status had, as in
// kube-controller-manager; names no longer in hard are dropped.
func (c *Controller) sync(ctx context.Context, key string) error {
	ns, name, _ := strings.Cut(key, "/")
	obj, err := c.objs.Get(ctx, quotasGVR, ns, name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	rq, ok := obj.(*corev1.ResourceQuota)
	if !ok {
		return fmt.Errorf("resourcequota %s: read a %T", key, obj)
	}
	dirty := !apiequality.Semantic.DeepEqual(rq.Spec.Hard, rq.Status.Hard) || rq.Status.Hard == nil || rq.Status.Used == nil
	used := quota.Add(corev1.ResourceList{}, rq.Status.Used)
	hard := quota.Add(corev1.ResourceList{}, rq.Spec.Hard)
	// Whatever was computed is written even when part failed; the
	// failure is returned so that the quota is tried again.
	usage, calcErr := quota.CalculateUsage(ctx, rq, c.evaluators(), c.list)
	for n, q := range usage {
		used[n] = q
	}
	used = quota.Mask(used, quota.ResourceNames(hard))
	dirty = dirty || !quota.Equals(used, rq.Status.Used)
	if !dirty {
		return calcErr
	}
	out := rq.DeepCopy()
	out.Status = corev1.ResourceQuotaStatus{Hard: hard, Used: used}
	if _, err := c.write.ApplyStatus(ctx, out, Manager); err != nil {
		return errors.Join(calcErr, fmt.Errorf("updating the status of resourcequota %s: %w", key, err))
	}
	return calcErr
}
