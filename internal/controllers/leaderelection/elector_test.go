package leaderelection

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/portcullis/portcullis/internal/controllers/controllertest"
)

// Three replicas on one store: one leads at a time, the Lease names it,
// and each cancelled leader hands over to one of the others.
func TestOneLeaderAtATimeAndHandover(t *testing.T) {
	env := controllertest.New(t)
	rec := newTerms(t)
	ids := []string{"replica-a", "replica-b", "replica-c"}
	electors := map[string]*Elector{}
	runs := map[string]*running{}
	for _, id := range ids {
		electors[id] = newElector(t, env, env.API, testConfig(id))
		runs[id] = start(t, electors[id], rec.lead(id))
	}

	var previous []string
	for round := range ids {
		var leader string
		controllertest.Eventually(t, func() (bool, string) {
			leader = rec.leader()
			return leader != "" && !slices.Contains(previous, leader), fmt.Sprintf("round %d: leader %q, previous %v", round, leader, previous)
		})
		lease := electors[leader].readLease(t)
		if got := ptr.Deref(lease.Spec.HolderIdentity, ""); got != leader {
			t.Errorf("round %d: lease names %q, %s leads", round, got, leader)
		}
		if got := ptr.Deref(lease.Spec.LeaseTransitions, -1); got < int32(round) {
			t.Errorf("round %d: leaseTransitions %d", round, got)
		}
		if !electors[leader].IsLeader() {
			t.Errorf("round %d: %s leads but IsLeader is false", round, leader)
		}

		// Run returns only once lead has, and with the lease released.
		runs[leader].stop()
		if rec.isActive(leader) {
			t.Errorf("round %d: Run of %s returned before its lead did", round, leader)
		}
		if electors[leader].IsLeader() {
			t.Errorf("round %d: %s stopped but IsLeader is true", round, leader)
		}
		previous = append(previous, leader)
	}
	lease := electors[ids[0]].readLease(t)
	if got := ptr.Deref(lease.Spec.HolderIdentity, "?"); got != "" {
		t.Errorf("after every replica stopped, the lease names %q", got)
	}
}

// A leader whose writes fail stops leading after RenewDeadline; another
// replica takes over once the lease expires by its own clock.
func TestFailedRenewalsEndTheTerm(t *testing.T) {
	env := controllertest.New(t)
	rec := newTerms(t)
	// A wide gap between RenewDeadline and LeaseDuration: the old leader
	// must have stopped before the new one may start.
	cfg := func(id string) Config {
		c := testConfig(id)
		c.LeaseDuration = 5 * time.Second
		return c
	}
	broken := &failingAPI{API: env.API}
	a := newElector(t, env, broken, cfg("replica-a"))
	runA := start(t, a, rec.lead("replica-a"))
	controllertest.Eventually(t, func() (bool, string) {
		return rec.leader() == "replica-a", "replica-a never led"
	})
	b := newElector(t, env, env.API, cfg("replica-b"))
	start(t, b, rec.lead("replica-b"))

	broken.failing.Store(true)
	controllertest.Eventually(t, func() (bool, string) {
		return !rec.isActive("replica-a"), "replica-a leads on with failing renewals"
	})
	rec.mu.Lock()
	err := context.Cause(rec.ctxs["replica-a"])
	rec.mu.Unlock()
	if !errors.Is(err, context.Canceled) {
		t.Errorf("replica-a's lead context ended with %v", err)
	}
	if a.IsLeader() {
		t.Error("replica-a's term ended but IsLeader is true")
	}
	controllertest.Eventually(t, func() (bool, string) {
		return rec.leader() == "replica-b", fmt.Sprintf("leader %q", rec.leader())
	})
	if got := ptr.Deref(b.readLease(t).Spec.HolderIdentity, ""); got != "replica-b" {
		t.Errorf("lease names %q", got)
	}
	// Healed, the old leader finds the lease taken (its Run stopped
	// first: an Elector makes one try at a time).
	runA.stop()
	broken.failing.Store(false)
	if err := a.try(context.Background(), false); !errors.Is(err, errHeldByOther) {
		t.Errorf("replica-a's try on a held lease: %v", err)
	}
}

// A leader that sees another holder in the Lease stops at once.
func TestAnotherHolderEndsTheTerm(t *testing.T) {
	env := controllertest.New(t)
	rec := newTerms(t)
	a := newElector(t, env, env.API, testConfig("replica-a"))
	start(t, a, rec.lead("replica-a"))
	controllertest.Eventually(t, func() (bool, string) { return rec.leader() == "replica-a", "replica-a never led" })

	lease := a.readLease(t)
	lease.Spec.HolderIdentity = ptr.To("intruder")
	if _, err := env.API.Apply(context.Background(), lease, "test"); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, func() (bool, string) {
		return !rec.isActive("replica-a") && !a.IsLeader(), "replica-a leads on under another holder"
	})
}

// The Lease carries client-go's fields: created with the holder, renewed
// with a new renewTime and the same acquireTime, released empty.
func TestLeaseFields(t *testing.T) {
	env := controllertest.New(t)
	rec := newTerms(t)
	a := newElector(t, env, env.API, testConfig("replica-a"))
	run := start(t, a, rec.lead("replica-a"))
	controllertest.Eventually(t, func() (bool, string) { return rec.leader() == "replica-a", "replica-a never led" })

	first := a.readLease(t)
	if first.Namespace != "kube-system" || first.Name != "test-controllers" {
		t.Errorf("lease %s/%s", first.Namespace, first.Name)
	}
	spec := first.Spec
	if ptr.Deref(spec.HolderIdentity, "") != "replica-a" || ptr.Deref(spec.LeaseDurationSeconds, 0) != 2 ||
		ptr.Deref(spec.LeaseTransitions, -1) != 0 || spec.AcquireTime == nil || spec.RenewTime == nil ||
		spec.Strategy != nil || spec.PreferredHolder != nil {
		t.Errorf("acquired lease spec %+v", spec)
	}
	var renewed *coordinationv1.Lease
	controllertest.Eventually(t, func() (bool, string) {
		renewed = a.readLease(t)
		return renewed.ResourceVersion != first.ResourceVersion, "never renewed"
	})
	if !renewed.Spec.RenewTime.After(spec.RenewTime.Time) || !renewed.Spec.AcquireTime.Equal(spec.AcquireTime) ||
		ptr.Deref(renewed.Spec.LeaseTransitions, -1) != 0 {
		t.Errorf("renewed lease spec %+v after %+v", renewed.Spec, spec)
	}
	if m := renewed.ManagedFields; len(m) == 0 || m[0].Manager != Manager {
		t.Errorf("managed fields %+v", m)
	}

	run.stop()
	released := a.readLease(t).Spec
	if ptr.Deref(released.HolderIdentity, "?") != "" || ptr.Deref(released.LeaseDurationSeconds, 0) != 1 ||
		ptr.Deref(released.LeaseTransitions, -1) != 0 {
		t.Errorf("released lease spec %+v", released)
	}
}

// A lead that returns by itself gives the lease up; Run then competes
// again, and taking the released lease counts as a transition.
func TestLeadReturningReleases(t *testing.T) {
	env := controllertest.New(t)
	a := newElector(t, env, env.API, testConfig("replica-a"))
	var mu sync.Mutex
	calls := 0
	second := make(chan struct{})
	start(t, a, func(ctx context.Context) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		if n == 1 {
			return
		}
		if n == 2 {
			close(second)
		}
		<-ctx.Done()
	})
	select {
	case <-second:
	case <-time.After(time.Minute):
		t.Fatal("lead not called again after it returned")
	}
	if got := ptr.Deref(a.readLease(t).Spec.LeaseTransitions, -1); got != 1 {
		t.Errorf("leaseTransitions %d, want 1 (released, then taken again)", got)
	}
}

// The lease expires by the observer's clock, counted from the last
// change it saw; the holder's renewTime, however far off, plays no part.
func TestExpiryByObserversClock(t *testing.T) {
	year := 365 * 24 * time.Hour
	for _, tc := range []struct {
		name  string
		renew time.Duration // the ghost's renewTime, from the observer's now
	}{
		{name: "holder clock behind", renew: -year},
		{name: "holder clock ahead", renew: year},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := controllertest.New(t)
			ctx := context.Background()
			clk := clocktesting.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
			ghostTime := metav1.NewMicroTime(clk.Now().Add(tc.renew))
			ghost := &coordinationv1.Lease{
				ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "test-controllers"},
				Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("ghost"), LeaseDurationSeconds: ptr.To[int32](10),
					AcquireTime: &ghostTime, RenewTime: &ghostTime, LeaseTransitions: ptr.To[int32](3)},
			}
			if _, err := env.API.Create(ctx, ghost, "test"); err != nil {
				t.Fatal(err)
			}
			cfg := testConfig("replica-a")
			cfg.Clock = clk
			a := newElector(t, env, env.API, cfg)

			if err := a.try(ctx, false); !errors.Is(err, errHeldByOther) {
				t.Fatalf("first look: %v", err)
			}
			clk.Step(9 * time.Second)
			if err := a.try(ctx, false); !errors.Is(err, errHeldByOther) {
				t.Fatalf("9s after first look: %v", err)
			}
			// The ghost renews: the countdown starts again.
			lease := a.readLease(t)
			renewed := metav1.NewMicroTime(ghostTime.Add(time.Second))
			lease.Spec.RenewTime = &renewed
			if _, err := env.API.Apply(ctx, lease, "test"); err != nil {
				t.Fatal(err)
			}
			if err := a.try(ctx, false); !errors.Is(err, errHeldByOther) {
				t.Fatalf("at the renewal: %v", err)
			}
			clk.Step(9 * time.Second)
			if err := a.try(ctx, false); !errors.Is(err, errHeldByOther) {
				t.Fatalf("9s after the renewal: %v", err)
			}
			clk.Step(time.Second)
			if err := a.try(ctx, false); err != nil {
				t.Fatalf("10s after the renewal: %v", err)
			}
			spec := a.readLease(t).Spec
			if ptr.Deref(spec.HolderIdentity, "") != "replica-a" || ptr.Deref(spec.LeaseTransitions, 0) != 4 ||
				!spec.AcquireTime.Time.Equal(clk.Now()) {
				t.Errorf("taken lease spec %+v", spec)
			}
		})
	}
}

// A lease with no holder (released) is free at once.
func TestEmptyHolderIsFree(t *testing.T) {
	env := controllertest.New(t)
	ctx := context.Background()
	now := metav1.NewMicroTime(time.Now())
	if _, err := env.API.Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "test-controllers"},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To(""), LeaseDurationSeconds: ptr.To[int32](3600), RenewTime: &now},
	}, "test"); err != nil {
		t.Fatal(err)
	}
	a := newElector(t, env, env.API, testConfig("replica-a"))
	if err := a.try(ctx, false); err != nil {
		t.Fatalf("taking a released lease: %v", err)
	}
}

// Replicas that all read the same lease before any writes it: exactly
// one wins, whether the lease is to be created or taken over.
func TestOnlyOneWinsARace(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lease *coordinationv1.Lease // nil: none yet
	}{
		{name: "create"},
		{name: "take over", lease: &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "test-controllers"},
			Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To("")},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := controllertest.New(t)
			ctx := context.Background()
			if tc.lease != nil {
				if _, err := env.API.Create(ctx, tc.lease, "test"); err != nil {
					t.Fatal(err)
				}
			}
			const n = 3
			var arrived sync.WaitGroup
			arrived.Add(n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				e := newElector(t, env, barrierAPI{API: env.API, arrived: &arrived}, testConfig(fmt.Sprintf("replica-%d", i)))
				wg.Go(func() { errs[i] = e.try(ctx, false) })
			}
			wg.Wait()
			won := 0
			for i, err := range errs {
				switch {
				case err == nil:
					won++
				case apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err):
				default:
					t.Errorf("replica-%d: %v", i, err)
				}
			}
			if won != 1 {
				t.Errorf("%d winners: %v", won, errs)
			}
		})
	}
}

// leader_election_master_status is 1 on the leader, 0 on the others.
func TestMasterStatusMetric(t *testing.T) {
	env := controllertest.New(t)
	rec := newTerms(t)
	regs := map[string]*prometheus.Registry{}
	electors := map[string]*Elector{}
	for _, id := range []string{"replica-a", "replica-b"} {
		cfg := testConfig(id)
		regs[id] = prometheus.NewRegistry()
		cfg.Metrics = regs[id]
		electors[id] = newElector(t, env, env.API, cfg)
		start(t, electors[id], rec.lead(id))
	}
	var leader string
	controllertest.Eventually(t, func() (bool, string) { leader = rec.leader(); return leader != "", "no leader" })
	for id, reg := range regs {
		want := 0.0
		if id == leader {
			want = 1
		}
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		if len(mfs) != 1 || mfs[0].GetName() != "leader_election_master_status" {
			t.Fatalf("%s gathered %v", id, mfs)
		}
		if got := testutil.ToFloat64(electors[id].status); got != want {
			t.Errorf("%s: leader_election_master_status %v, want %v", id, got, want)
		}
		if l := mfs[0].GetMetric()[0].GetLabel(); len(l) != 1 || l[0].GetName() != "name" || l[0].GetValue() != "test-controllers" {
			t.Errorf("%s: labels %v", id, l)
		}
	}
}

// Group runs every controller under lead's context and returns when all
// have returned.
func TestGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	started, stopped := 0, 0
	all := make(chan struct{})
	run := func(ctx context.Context) {
		mu.Lock()
		started++
		if started == 3 {
			close(all)
		}
		mu.Unlock()
		<-ctx.Done()
		mu.Lock()
		stopped++
		mu.Unlock()
	}
	done := make(chan struct{})
	go func() { defer close(done); Group(run, run, run)(ctx) }()
	<-all
	cancel()
	<-done
	if stopped != 3 {
		t.Errorf("Group returned with %d of 3 stopped", stopped)
	}
}

func TestConfig(t *testing.T) {
	env := controllertest.New(t)
	e, err := New(env.Objects, env.API, Config{Name: "kube-controller-manager"})
	if err != nil {
		t.Fatal(err)
	}
	c := e.cfg
	if c.Namespace != "kube-system" || c.LeaseDuration != 15*time.Second || c.RenewDeadline != 10*time.Second ||
		c.RetryPeriod != 2*time.Second || c.Identity == "" || c.Clock == nil || c.Log == nil {
		t.Errorf("defaults %+v", c)
	}
	other, err := New(env.Objects, env.API, Config{Name: "kube-controller-manager"})
	if err != nil {
		t.Fatal(err)
	}
	if other.Identity() == e.Identity() {
		t.Errorf("two electors share the default identity %q", e.Identity())
	}

	for _, tc := range []struct {
		name string
		cfg  Config
		want []string
	}{
		{name: "no name", cfg: Config{}, want: []string{"name: required"}},
		{name: "bad name", cfg: Config{Name: "Not_A_Name"}, want: []string{"name: a lowercase RFC 1123 subdomain"}},
		{name: "bad namespace", cfg: Config{Name: "x", Namespace: "a.b"}, want: []string{"namespace: must not contain dots"}},
		{name: "fractional lease", cfg: Config{Name: "x", LeaseDuration: 1500 * time.Millisecond, RenewDeadline: time.Second, RetryPeriod: 100 * time.Millisecond},
			want: []string{"leaseDuration: 1.5s is not a positive whole number of seconds"}},
		{name: "lease not beyond deadline", cfg: Config{Name: "x", LeaseDuration: 10 * time.Second},
			want: []string{"leaseDuration: 10s must be greater than renewDeadline 10s"}},
		{name: "deadline within retries", cfg: Config{Name: "x", RenewDeadline: 2 * time.Second},
			want: []string{"renewDeadline: 2s must be greater than retryPeriod*1.2 (2s)"}},
		{name: "negative", cfg: Config{Name: "x", RenewDeadline: -time.Second, RetryPeriod: -time.Second},
			want: []string{"renewDeadline: -1s must be greater than zero", "retryPeriod: -1s must be greater than zero"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(env.Objects, env.API, tc.cfg)
			if !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("error %v, want ErrInvalidConfig", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
