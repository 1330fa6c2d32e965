package objectcount

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/portcullis/portcullis/internal/registry"
	"github.com/portcullis/portcullis/internal/storage"
)

// Poller counts the objects of every stored resource once per period.
type Poller struct {
	reg    *registry.Registry
	store  storage.Store
	period time.Duration
	log    *slog.Logger

	objects *prometheus.GaugeVec
}

// New registers the metrics on prom and returns a poller of period.
func New(reg *registry.Registry, store storage.Store, period time.Duration, prom prometheus.Registerer, log *slog.Logger) (*Poller, error) {
	p := &Poller{reg: reg, store: store, period: period, log: log,
		objects: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "apiserver_resource_objects",
			Help: "[ALPHA] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.",
		}, []string{"group", "resource"}),
	}
	if err := prom.Register(p.objects); err != nil {
		return nil, err
	}
	return p, nil
}

// Run counts at once, then every period, until ctx is done.
func (p *Poller) Run(ctx context.Context) {
	t := time.NewTicker(p.period)
	defer t.Stop()
	for {
		p.Count(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Count counts every stored resource once. Resources stored as another
// (events.k8s.io Events) are counted under the one that stores them, and
// custom resources as their CRDs serve them, each once.
func (p *Poller) Count(ctx context.Context) {
	seen := map[string]bool{}
	for _, r := range p.reg.All() {
		if r.Virtual || r.StoredAs != nil || seen[r.KeyPrefix()] {
			continue
		}
		seen[r.KeyPrefix()] = true
		gr := r.GroupResource()
		n, err := p.count(ctx, r.KeyPrefix())
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			p.log.Debug("counting stored objects", "resource", gr.String(), "err", err)
			n = -1
		}
		p.objects.WithLabelValues(gr.Group, gr.Resource).Set(float64(n))
	}
}

// count asks for one value and the number after it: a count the store
// answers without reading every value (etcd counts server-side).
func (p *Poller) count(ctx context.Context, prefix string) (int64, error) {
	res, err := p.store.List(ctx, prefix, storage.ListOptions{Limit: 1})
	if err != nil {
		return 0, err
	}
	return int64(len(res.KVs)) + res.Remaining, nil
}
