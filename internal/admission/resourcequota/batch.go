package resourcequota

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/portcullis/portcullis/internal/admission"
)

// errDefaultDeny is a waiter's result until its usage is recorded: a
// request whose charge was not written is never admitted.
var errDefaultDeny = errors.New("DEFAULT DENY")

// timeout is how long a request waits for its batch, as in kube-apiserver.
const timeout = 10 * time.Second

// waiter is one request in a batch.
type waiter struct {
	a   *admission.Attributes
	err error
	// done is closed when err is final.
	done chan struct{}
	// lead receives the batch this waiter is to check, when the one
	// before it is finished.
	lead chan []*waiter
}

// batcher serialises quota checks per namespace and batches them: one
// request at a time checks a namespace, and the requests that arrive
// meanwhile are checked together next, by the first of them. No
// goroutine is started; each batch runs on a waiting request's own.
type batcher struct {
	check func(ctx context.Context, ns string, batch []*waiter)

	mu sync.Mutex
	// busy holds the namespaces being checked, with the requests waiting
	// for the next batch.
	busy map[string][]*waiter
}

func newBatcher(check func(ctx context.Context, ns string, batch []*waiter)) *batcher {
	return &batcher{check: check, busy: map[string][]*waiter{}}
}

// do waits for a's result.
func (b *batcher) do(ctx context.Context, a *admission.Attributes) error {
	w := &waiter{a: a, err: errDefaultDeny, done: make(chan struct{}), lead: make(chan []*waiter, 1)}
	ns := a.Namespace
	b.mu.Lock()
	if pending, ok := b.busy[ns]; ok {
		b.busy[ns] = append(pending, w)
		b.mu.Unlock()
	} else {
		b.busy[ns] = nil
		b.mu.Unlock()
		w.lead <- []*waiter{w}
	}

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-w.done:
		return w.err
	case batch := <-w.lead:
		b.run(ctx, ns, batch)
		<-w.done
		return w.err
	case <-timer.C:
	case <-ctx.Done():
	}
	if !b.abandon(ns, w) {
		// w is no longer waiting for a batch: either it leads the next
		// one, which it must run since others wait on it (the batch was
		// handed over under the lock abandon took, so it is here by now),
		// or it is in a running batch that may still charge it, as
		// kube-apiserver's may after its timeout.
		select {
		case batch := <-w.lead:
			b.run(ctx, ns, batch)
			<-w.done
			return w.err
		default:
		}
	}
	return apierrors.NewInternalError(fmt.Errorf("resource quota evaluation timed out"))
}

// abandon takes w out of the next batch, if it is still waiting there.
func (b *batcher) abandon(ns string, w *waiter) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	pending := b.busy[ns]
	for i, p := range pending {
		if p == w {
			b.busy[ns] = append(pending[:i:i], pending[i+1:]...)
			return true
		}
	}
	return false
}

// run checks batch, then hands the namespace to the first request that
// arrived meanwhile, or frees it.
func (b *batcher) run(ctx context.Context, ns string, batch []*waiter) {
	// The batch answers other requests too: one client going away must
	// not fail them.
	b.check(context.WithoutCancel(ctx), ns, batch)
	for _, w := range batch {
		close(w.done)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	next := b.busy[ns]
	if len(next) == 0 {
		delete(b.busy, ns)
		return
	}
	b.busy[ns] = nil
	next[0].lead <- next
}
