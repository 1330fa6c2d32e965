package leaderelection

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/controllers/controllertest"
)

// Short timings, so that handovers by expiry happen within the test;
// no test asserts how long anything took.
func testConfig(id string) Config {
	return Config{Name: "test-controllers", Identity: id, LeaseDuration: 2 * time.Second,
		RenewDeadline: time.Second, RetryPeriod: 100 * time.Millisecond, Log: slog.New(slog.DiscardHandler)}
}

func newElector(t *testing.T, env *controllertest.Env, api API, cfg Config) *Elector {
	t.Helper()
	e, err := New(env.Objects, api, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// terms records who leads: lead functions enter and exit, and a second
// entry while one is active is the overlap the election must prevent.
type terms struct {
	t       *testing.T
	mu      sync.Mutex
	active  []string
	entries []string
	ctxs    map[string]context.Context
}

func newTerms(t *testing.T) *terms { return &terms{t: t, ctxs: map[string]context.Context{}} }

// lead is id's lead function: it holds its term until its context ends.
func (r *terms) lead(id string) func(ctx context.Context) {
	return func(ctx context.Context) {
		r.mu.Lock()
		if len(r.active) > 0 {
			r.t.Errorf("%s leads while %v still lead", id, r.active)
		}
		r.active = append(r.active, id)
		r.entries = append(r.entries, id)
		r.ctxs[id] = ctx
		r.mu.Unlock()
		<-ctx.Done()
		r.mu.Lock()
		r.active = slices.DeleteFunc(r.active, func(s string) bool { return s == id })
		r.mu.Unlock()
	}
}

// leader is the one active term's holder, or "".
func (r *terms) leader() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.active) != 1 {
		return ""
	}
	return r.active[0]
}

func (r *terms) isActive(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Contains(r.active, id)
}

func (r *terms) count(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, e := range r.entries {
		if e == id {
			n++
		}
	}
	return n
}

// running is an elector's Run in its own goroutine.
type running struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func start(t *testing.T, e *Elector, lead func(ctx context.Context)) *running {
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{cancel: cancel, done: make(chan struct{})}
	go func() { defer close(r.done); e.Run(ctx, lead) }()
	t.Cleanup(r.stop)
	return r
}

// stop cancels Run and waits for it to return.
func (r *running) stop() { r.cancel(); <-r.done }

func (e *Elector) readLease(t *testing.T) *coordinationv1.Lease {
	t.Helper()
	obj, err := e.objs.Get(context.Background(), leases, e.cfg.Namespace, e.cfg.Name)
	if err != nil {
		t.Fatalf("reading lease: %v", err)
	}
	return obj.(*coordinationv1.Lease)
}

var errInjected = errors.New("injected API failure")

// failingAPI passes writes on until failing is set, then fails them.
type failingAPI struct {
	API
	failing atomic.Bool
}

func (f *failingAPI) Create(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	if f.failing.Load() {
		return nil, errInjected
	}
	return f.API.Create(ctx, obj, manager)
}

func (f *failingAPI) Apply(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	if f.failing.Load() {
		return nil, errInjected
	}
	return f.API.Apply(ctx, obj, manager)
}

// barrierAPI holds each write until n writers have arrived, so that they
// all write on what they read before any of them wrote.
type barrierAPI struct {
	API
	arrived *sync.WaitGroup
}

func (b barrierAPI) Create(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	b.arrived.Done()
	b.arrived.Wait()
	return b.API.Create(ctx, obj, manager)
}

func (b barrierAPI) Apply(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	b.arrived.Done()
	b.arrived.Wait()
	return b.API.Apply(ctx, obj, manager)
}
