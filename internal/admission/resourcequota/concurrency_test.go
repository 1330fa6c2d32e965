package resourcequota

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/portcullis/portcullis/internal/admission"
)

// TestConcurrentAdmission: many requests against one quota, through one
// plugin and through two (two API servers on one store), never admit
// more than the quota allows, and every admitted request is recorded.
func TestConcurrentAdmission(t *testing.T) {
	for _, servers := range []int{1, 2} {
		t.Run(fmt.Sprintf("%d servers", servers), func(t *testing.T) {
			const hard, requests = 7, 40
			s := newStore(newQuota("q", list("pods", fmt.Sprint(hard)), list("pods", "0")))
			var plugins []*Plugin
			for range servers {
				p, err := New(nil, s, gates)
				if err != nil {
					t.Fatal(err)
				}
				plugins = append(plugins, p)
			}
			var wg sync.WaitGroup
			errs := make([]error, requests)
			for i := range requests {
				wg.Add(1)
				go func() {
					defer wg.Done()
					p := plugins[i%servers]
					errs[i] = p.Validate(context.Background(), attrs(admission.Create, "pods", "", podOf(fmt.Sprintf("p%d", i), nil, nil), nil))
				}()
			}
			wg.Wait()
			admitted := 0
			for _, err := range errs {
				switch {
				case err == nil:
					admitted++
				case apierrors.IsForbidden(err), apierrors.IsConflict(err):
				default:
					t.Errorf("unexpected error %v", err)
				}
			}
			used := s.get("q").Status.Used[corev1.ResourcePods]
			if d := cmp.Diff(admitted, int(used.Value())); d != "" {
				t.Errorf("admitted requests vs recorded usage (-admitted +used):\n%s", d)
			}
			if admitted > hard {
				t.Errorf("admitted %d pods, quota allows %d", admitted, hard)
			}
			if servers == 1 && admitted != hard {
				// One server serialises its own writes: nothing conflicts,
				// so the quota is filled exactly.
				t.Errorf("admitted %d pods, want %d", admitted, hard)
			}
		})
	}
}

// TestConflictRetry: a status write that conflicts with another writer is
// retried on a fresh copy; the other writer's usage is kept.
func TestConflictRetry(t *testing.T) {
	tests := []struct {
		name      string
		conflicts int
		want      string
		used      string
	}{
		{name: "one conflict", conflicts: 1, used: "3"},
		{name: "three conflicts", conflicts: 3, used: "3"},
		{name: "four conflicts exhaust the retries", conflicts: 4, used: "2",
			want: `Operation cannot be fulfilled on resourcequotas "q": the object has been modified; please apply your changes to the latest version and try again`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(newQuota("q", list("pods", "10"), list("pods", "1")))
			left := tt.conflicts
			s.beforeWrite = func(s *store, q *corev1.ResourceQuota) {
				if left == 0 {
					return
				}
				left--
				// Another server charged a pod the first time only;
				// later conflicts only bump the version.
				cur := s.get("q")
				if left == tt.conflicts-1 {
					cur.Status.Used = list("pods", "2")
				}
				s.put(cur)
			}
			p, err := New(nil, s, gates)
			if err != nil {
				t.Fatal(err)
			}
			err = p.Validate(context.Background(), attrs(admission.Create, "pods", "", podOf("p", nil, nil), nil))
			if d := cmp.Diff(tt.want, errText(err)); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.used, render(s.get("q").Status.Used)["pods"]); d != "" {
				t.Errorf("used pods (-want +got):\n%s", d)
			}
		})
	}
}

// TestBatchHandOver drives the batcher by hand: requests that arrive
// while a namespace is checked are checked together next, in arrival
// order, by the first of them.
func TestBatchHandOver(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	var mu sync.Mutex
	var batches [][]string
	b := newBatcher(func(_ context.Context, _ string, batch []*waiter) {
		var names []string
		for _, w := range batch {
			names = append(names, w.a.Name)
			w.err = nil
		}
		mu.Lock()
		batches = append(batches, names)
		first := len(batches) == 1
		mu.Unlock()
		if first {
			close(started)
			<-release
		}
	})
	a := func(name string) *admission.Attributes { return &admission.Attributes{Name: name, Namespace: "ns"} }
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = b.do(context.Background(), a("first")) }()
	<-started
	// Queue two more while the first batch is held, then let it go.
	for _, n := range []string{"second", "third"} {
		wg.Add(1)
		go func() { defer wg.Done(); _ = b.do(context.Background(), a(n)) }()
		for {
			b.mu.Lock()
			queued := len(b.busy["ns"])
			b.mu.Unlock()
			if (n == "second" && queued == 1) || (n == "third" && queued == 2) {
				break
			}
			runtime.Gosched()
		}
	}
	close(release)
	wg.Wait()
	if d := cmp.Diff([][]string{{"first"}, {"second", "third"}}, batches); d != "" {
		t.Errorf("batches (-want +got):\n%s", d)
	}
	if d := cmp.Diff(0, len(b.busy)); d != "" {
		t.Errorf("namespaces left busy (-want +got):\n%s", d)
	}
}
