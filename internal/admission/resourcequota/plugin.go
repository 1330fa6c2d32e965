package resourcequota

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/quota"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "ResourceQuota"

// Quotas reads and charges the ResourceQuotas of a namespace.
type Quotas interface {
	// List returns the namespace's quotas (none is an empty list).
	List(ctx context.Context, namespace string) ([]*corev1.ResourceQuota, error)
	// UpdateStatus writes q's status, and returns an apierrors Conflict
	// when q.ResourceVersion is not the stored one.
	UpdateStatus(ctx context.Context, q *corev1.ResourceQuota) (*corev1.ResourceQuota, error)
}

// QuotaFuncs adapts two functions to Quotas.
type QuotaFuncs struct {
	ListFunc         func(ctx context.Context, namespace string) ([]*corev1.ResourceQuota, error)
	UpdateStatusFunc func(ctx context.Context, q *corev1.ResourceQuota) (*corev1.ResourceQuota, error)
}

// List calls ListFunc.
func (f QuotaFuncs) List(ctx context.Context, ns string) ([]*corev1.ResourceQuota, error) {
	return f.ListFunc(ctx, ns)
}

// UpdateStatus calls UpdateStatusFunc.
func (f QuotaFuncs) UpdateStatus(ctx context.Context, q *corev1.ResourceQuota) (*corev1.ResourceQuota, error) {
	return f.UpdateStatusFunc(ctx, q)
}

// Options are the feature gates the evaluators follow.
type Options struct {
	Pods quota.PodOptions
}

// Plugin is ResourceQuota.
type Plugin struct {
	quotas   Quotas
	config   *Configuration
	registry *quota.Registry
	batches  *batcher

	// written remembers the quotas this plugin wrote until a List shows
	// them, so that a List that lags (an informer) is not taken for the
	// truth and wasted on conflicts.
	mu      sync.Mutex
	written map[string]*corev1.ResourceQuota
}

var _ admission.Validator = (*Plugin)(nil)

// New returns the plugin with its configuration file's content (empty:
// none).
func New(config []byte, quotas Quotas, opts Options) (*Plugin, error) {
	c, err := Decode(config)
	if err != nil {
		return nil, err
	}
	p := &Plugin{quotas: quotas, config: c, registry: quota.NewRegistry(opts.Pods), written: map[string]*corev1.ResourceQuota{}}
	p.batches = newBatcher(p.checkBatch)
	return p, nil
}

var namespaceKind = schema.GroupKind{Kind: "Namespace"}

// Validate implements admission.Validator: the request is admitted only
// once its usage is recorded in every quota that covers it.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	if a.Namespace == "" || (a.Operation == admission.Create && a.Kind.GroupKind() == namespaceKind) {
		return nil
	}
	gr := a.Resource.GroupResource()
	if p.registry.Ignored(gr) {
		return nil
	}
	if !p.registry.Get(gr).Handles(a) {
		return nil
	}
	return asStatus(p.batches.do(ctx, a))
}

// list reads the namespace's quotas, each at the newer of what the
// store answered and what this plugin last wrote.
func (p *Plugin) list(ctx context.Context, ns string) ([]corev1.ResourceQuota, error) {
	items, err := p.quotas.List(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("error resolving quota: %w", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]corev1.ResourceQuota, 0, len(items))
	for _, q := range items {
		key := q.Namespace + "/" + q.Name
		if w, ok := p.written[key]; ok {
			if newer(w, q) {
				q = w
			} else {
				delete(p.written, key)
			}
		}
		out = append(out, *q.DeepCopy())
	}
	return out, nil
}

// newer says whether a has a later resourceVersion than b; versions that
// are not numbers are never newer.
func newer(a, b *corev1.ResourceQuota) bool {
	av, err1 := strconv.ParseUint(a.ResourceVersion, 10, 64)
	bv, err2 := strconv.ParseUint(b.ResourceVersion, 10, 64)
	return err1 == nil && err2 == nil && av > bv
}

// maxWritten bounds the memory of written quotas: quotas deleted after a
// write are never listed again.
const maxWritten = 10000

func (p *Plugin) updateStatus(ctx context.Context, q *corev1.ResourceQuota) error {
	updated, err := p.quotas.UpdateStatus(ctx, q)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.written) >= maxWritten {
		clear(p.written)
	}
	p.written[updated.Namespace+"/"+updated.Name] = updated.DeepCopy()
	return nil
}

// maxRetries is how often a batch re-reads the quotas whose status write
// conflicted before it refuses what is left.
const maxRetries = 3

// checkBatch charges a batch of requests of one namespace and sets each
// waiter's result.
func (p *Plugin) checkBatch(ctx context.Context, ns string, batch []*waiter) {
	quotas, err := p.list(ctx, ns)
	if err != nil {
		for _, w := range batch {
			w.err = err
		}
		return
	}
	if len(quotas) == 0 && len(p.config.LimitedResources) == 0 {
		for _, w := range batch {
			w.err = nil
		}
		return
	}
	p.checkQuotas(ctx, quotas, batch, maxRetries)
}

// checkQuotas charges the batch in order, each request against the
// usage left by the ones before, writes the changed quotas, and retries
// the ones whose write conflicted with fresh copies. A waiter keeps
// errDefaultDeny until all writes that carry its usage succeeded.
func (p *Plugin) checkQuotas(ctx context.Context, quotas []corev1.ResourceQuota, batch []*waiter, retries int) {
	original := copyQuotas(quotas)
	changed := false
	for _, w := range batch {
		next, err := check(quotas, w.a, p.registry.Get(w.a.Resource.GroupResource()), p.config.LimitedResources)
		if err != nil {
			w.err = err
			continue
		}
		if w.a.DryRun {
			w.err = nil
			continue
		}
		mine := false
		for j := range next {
			if !quota.Equals(quotas[j].Status.Used, next[j].Status.Used) {
				mine = true
				break
			}
		}
		if !mine {
			w.err = nil
		}
		changed = changed || mine
		quotas = next
	}
	if !changed {
		return
	}

	var failed []string
	var lastErr error
	for i := range quotas {
		if quota.Equals(original[i].Status.Used, quotas[i].Status.Used) {
			continue
		}
		if err := p.updateStatus(ctx, &quotas[i]); err != nil {
			failed = append(failed, quotas[i].Name)
			lastErr = err
		}
	}
	if len(failed) == 0 {
		for _, w := range batch {
			if w.err == errDefaultDeny {
				w.err = nil
			}
		}
		return
	}
	fail := func() {
		for _, w := range batch {
			if w.err == errDefaultDeny {
				w.err = lastErr
			}
		}
	}
	if retries <= 0 {
		fail()
		return
	}
	fresh, err := p.list(ctx, quotas[0].Namespace)
	if err != nil {
		fail()
		return
	}
	var again []corev1.ResourceQuota
	for _, q := range fresh {
		for _, name := range failed {
			if q.Name == name {
				again = append(again, q)
				break
			}
		}
	}
	p.checkQuotas(ctx, again, batch, retries-1)
}
