package resourcequota

import (
	"context"
	"strings"
	"time"

	"github.com/portcullis/portcullis/internal/quota"
	"github.com/portcullis/portcullis/internal/storage"
)

// followChanges watches everything stored, for the changes that release
// quota: a deletion of any quotable object, and the updates of pods,
// services and claims that quota.RequiresReplenish names. One watch of
// the whole store costs less than one per resource, and sees custom
// resources as soon as they are served. When the watch ends (the
// controller fell behind, or history was compacted) every quota is
// recalculated, since a deletion may have been missed meanwhile.
func (c *Controller) followChanges(ctx context.Context) {
	backoff := 100 * time.Millisecond
	for {
		events, err := c.objs.Store().Watch(ctx, c.objs.Registry().Root(), 0)
		if err == nil {
			for ev := range events {
				if ev.Type == storage.EventError {
					err = ev.Err
					break
				}
				backoff = 100 * time.Millisecond
				c.observe(ev)
			}
		}
		if ctx.Err() != nil {
			return
		}
		c.log.Warn("resource quota controller: watch of stored objects ended, recalculating every quota", "err", err)
		c.enqueueAll()
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// observe replenishes the quotas of the namespace of a deleted object,
// or of an updated one whose update may have released usage.
func (c *Controller) observe(ev storage.Event) {
	switch ev.Type {
	case storage.EventDelete:
		if res, ns, ok := c.resourceOf(ev.KV.Key); ok {
			c.replenish(res.GroupResource(), ns)
		}
	case storage.EventUpdate:
		// Most updates are of other resources (leases, nodes): they are
		// told apart by their key before anything is decoded.
		if ev.PrevKV == nil || !c.contentKey(ev.KV.Key) {
			return
		}
		res, ns, ok := c.resourceOf(ev.KV.Key)
		if !ok || !decoded[res.GroupResource()] {
			return
		}
		old, err1 := c.objs.Decode(res, *ev.PrevKV)
		cur, err2 := c.objs.Decode(res, ev.KV)
		if err1 != nil || err2 != nil {
			c.log.Error("resource quota controller: undecodable object", "key", ev.KV.Key, "err", err1, "err2", err2)
			return
		}
		if quota.RequiresReplenish(res.GroupResource(), old, cur, c.now()) {
			c.replenish(res.GroupResource(), ns)
		}
	}
}

// contentKey says whether key is of a resource whose updates may release
// quota.
func (c *Controller) contentKey(key string) bool {
	for _, p := range c.contentPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}
