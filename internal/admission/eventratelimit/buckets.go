package eventratelimit

import (
	"container/list"
	"sync"

	"k8s.io/client-go/util/flowcontrol"
)

// buckets finds the token bucket of a key.
type buckets interface {
	get(key string) flowcontrol.PassiveRateLimiter
}

// single is the one bucket of a Server limit.
type single struct {
	b flowcontrol.PassiveRateLimiter
}

func (s single) get(string) flowcontrol.PassiveRateLimiter { return s.b }

// lru keeps the buckets of the size most recently used keys; a key seen
// again after its bucket was dropped starts with a full bucket.
type lru struct {
	size      int
	newBucket func() flowcontrol.PassiveRateLimiter

	mu    sync.Mutex
	order *list.List // of *entry, most recent first
	byKey map[string]*list.Element
}

type entry struct {
	key    string
	bucket flowcontrol.PassiveRateLimiter
}

func newLRU(size int, newBucket func() flowcontrol.PassiveRateLimiter) *lru {
	return &lru{size: size, newBucket: newBucket, order: list.New(), byKey: map[string]*list.Element{}}
}

func (c *lru) get(key string) flowcontrol.PassiveRateLimiter {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*entry).bucket
	}
	b := c.newBucket()
	c.byKey[key] = c.order.PushFront(&entry{key: key, bucket: b})
	if c.order.Len() > c.size {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.byKey, oldest.Value.(*entry).key)
	}
	return b
}
