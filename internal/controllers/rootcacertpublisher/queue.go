package rootcacertpublisher

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// The retry delays of a namespace that failed, doubling from the first:
// kube-controller-manager's default per-item rate limit.
const (
	firstRetry = 5 * time.Millisecond
	maxRetry   = 1000 * time.Second
)

// queue holds namespace names to sync, each once, in arrival order.
type queue struct {
	mu     sync.Mutex
	order  []string
	queued map[string]bool
	wake   chan struct{}
}

func newQueue() *queue {
	return &queue{queued: map[string]bool{}, wake: make(chan struct{}, 1)}
}

func (q *queue) add(key string) {
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

func (q *queue) next() (string, bool) {
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

// work syncs queued keys one at a time until ctx is done; a key whose
// sync fails is queued again after its retry delay.
func (q *queue) work(ctx context.Context, syncKey func(context.Context, string) error, log *slog.Logger) {
	var wg sync.WaitGroup
	defer wg.Wait()
	delays := map[string]time.Duration{}
	for {
		key, ok := q.next()
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
		log.Warn("root CA cert publisher: syncing namespace failed", "namespace", key, "retry", delay, "err", err)
		wg.Go(func() {
			t := time.NewTimer(delay)
			defer t.Stop()
			select {
			case <-ctx.Done():
			case <-t.C:
				q.add(key)
			}
		})
	}
}
