package workqueue

import (
	"context"
	"sync"
	"time"
)

// The retry delays of a key that failed, doubling from the first:
// kube-controller-manager's default per-item rate limit.
const (
	firstRetry = 5 * time.Millisecond
	maxRetry   = 1000 * time.Second
)

// Queue holds keys to sync, each once, in arrival order.
type Queue struct {
	mu     sync.Mutex
	order  []string
	queued map[string]bool
	wake   chan struct{}
}

// New returns an empty queue.
func New() *Queue {
	return &Queue{queued: map[string]bool{}, wake: make(chan struct{}, 1)}
}

// Add queues key unless it is queued already.
func (q *Queue) Add(key string) {
	q.mu.Lock()
	if !q.queued[key] {
		q.queued[key] = true
		q.order = append(q.order, key)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Next takes the oldest queued key, if any.
func (q *Queue) Next() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.order) == 0 {
		return "", false
	}
	key := q.order[0]
	q.order = q.order[1:]
	delete(q.queued, key)
	return key, true
}

// Work syncs queued keys one at a time until ctx is done; a key whose
// sync fails is queued again after its retry delay.
func (q *Queue) Work(ctx context.Context, syncKey func(context.Context, string) error, failed func(key string, retry time.Duration, err error)) {
	var wg sync.WaitGroup
	defer wg.Wait()
	delays := map[string]time.Duration{}
	for {
		key, ok := q.Next()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-q.wake:
			}
			continue
		}
		err := syncKey(ctx, key)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			delete(delays, key)
			continue
		}
		delay := firstRetry
		if d, ok := delays[key]; ok {
			delay = min(2*d, maxRetry)
		}
		delays[key] = delay
		failed(key, delay, err)
		wg.Go(func() {
			t := time.NewTimer(delay)
			defer t.Stop()
			select {
			case <-ctx.Done():
			case <-t.C:
				q.Add(key)
			}
		})
	}
}
