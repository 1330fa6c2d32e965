package webhook

import (
	"sort"
	"sync"
	"sync/atomic"

	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/webhookclient"
)

// registry holds the configurations of one plugin and publishes an
// immutable snapshot of their webhooks after every change, so requests
// never take a lock.
type registry struct {
	mu      sync.Mutex
	configs map[string][]*hook
	snap    atomic.Pointer[snapshot]
	clients *webhookclient.Client
}

// snapshot lists webhooks by configuration name, then position.
type snapshot struct {
	index *matching.Index[*hook]
}

func newRegistry(clients *webhookclient.Client) *registry {
	r := &registry{configs: map[string][]*hook{}, clients: clients}
	r.snap.Store(&snapshot{index: matching.NewIndex[*hook]()})
	return r
}

func (r *registry) set(name string, hooks []*hook) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if hooks == nil {
		delete(r.configs, name)
	} else {
		r.configs[name] = hooks
	}
	names := make([]string, 0, len(r.configs))
	for n := range r.configs {
		names = append(names, n)
	}
	sort.Strings(names)
	idx := matching.NewIndex[*hook]()
	var all []*hook
	for _, n := range names {
		for _, h := range r.configs[n] {
			// Each snapshot has its own copies: the position changes with
			// the other configurations, and requests may still read the old.
			hc := *h
			hc.pos = len(all)
			idx.Add(&hc, hc.match)
			all = append(all, &hc)
		}
	}
	r.snap.Store(&snapshot{index: idx})
	endpoints := make([]*webhookclient.Endpoint, len(all))
	for i, h := range all {
		endpoints[i] = h.endpoint
	}
	r.clients.Retain(endpoints)
}

func (r *registry) current() *snapshot { return r.snap.Load() }
