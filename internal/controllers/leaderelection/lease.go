package leaderelection

import (
	"context"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

var leases = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}

// try makes one attempt to take the lease (renewing false) or to keep it
// (renewing true). It reads the Lease and writes it back guarded by the
// resourceVersion it read, so that of several replicas only one wins;
// errHeldByOther means another holder has it.
func (e *Elector) try(ctx context.Context, renewing bool) error {
	now := e.cfg.Clock.Now()
	obj, err := e.objs.Get(ctx, leases, e.cfg.Namespace, e.cfg.Name)
	if apierrors.IsNotFound(err) {
		// Creation is the guard here: a second Create finds it exists.
		lease := &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: e.cfg.Namespace, Name: e.cfg.Name},
			Spec:       e.spec(now, now, 0),
		}
		out, err := e.api.Create(ctx, lease, Manager)
		if err != nil {
			return fmt.Errorf("creating lease: %w", err)
		}
		e.observe(out, now)
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading lease: %w", err)
	}
	lease, ok := obj.(*coordinationv1.Lease)
	if !ok {
		return fmt.Errorf("reading lease: got %T", obj)
	}
	e.observe(lease, now)
	holder := ptr.Deref(lease.Spec.HolderIdentity, "")
	ours := holder == e.cfg.Identity
	// A leader renews only a lease that names it: anything else means
	// another replica may be leading already.
	if !ours && (renewing || holder != "" && !e.expired(now)) {
		return fmt.Errorf("%w %q", errHeldByOther, holder)
	}
	transitions := ptr.Deref(lease.Spec.LeaseTransitions, 0)
	acquired := now
	if ours && lease.Spec.AcquireTime != nil {
		acquired = lease.Spec.AcquireTime.Time
	}
	if !ours {
		transitions++
	}
	lease.Spec = e.spec(now, acquired, transitions)
	out, err := e.api.Apply(ctx, lease, Manager)
	if err != nil {
		return fmt.Errorf("updating lease: %w", err)
	}
	e.observe(out, now)
	return nil
}

// spec is the Lease spec of this elector holding the lease.
func (e *Elector) spec(now, acquired time.Time, transitions int32) coordinationv1.LeaseSpec {
	return coordinationv1.LeaseSpec{
		HolderIdentity:       ptr.To(e.cfg.Identity),
		LeaseDurationSeconds: ptr.To(int32(e.cfg.LeaseDuration / time.Second)),
		AcquireTime:          &metav1.MicroTime{Time: acquired},
		RenewTime:            &metav1.MicroTime{Time: now},
		LeaseTransitions:     ptr.To(transitions),
	}
}

// observe notes the lease as seen at now when its spec changed since the
// last look: the countdown to expiry starts at the last change this
// replica saw, by its own clock.
func (e *Elector) observe(obj runtime.Object, now time.Time) {
	lease, ok := obj.(*coordinationv1.Lease)
	if !ok {
		return
	}
	if e.seen && apiequality.Semantic.DeepEqual(e.observed, lease.Spec) {
		return
	}
	e.observed = *lease.Spec.DeepCopy()
	e.observedAt = now
	e.seen = true
}

// expired reports whether the observed holder's leaseDurationSeconds have
// passed since the lease last changed.
func (e *Elector) expired(now time.Time) bool {
	d := time.Duration(ptr.Deref(e.observed.LeaseDurationSeconds, 0)) * time.Second
	return !now.Before(e.observedAt.Add(d))
}

// release gives up a lease this elector still holds, so that another
// replica takes it at its next try rather than after LeaseDuration. It
// runs after ctx is done, so it has RenewDeadline of its own.
func (e *Elector) release(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.cfg.RenewDeadline)
	defer cancel()
	for {
		obj, err := e.objs.Get(ctx, leases, e.cfg.Namespace, e.cfg.Name)
		if err != nil {
			e.log.Warn("leader election: releasing the lease", "err", fmt.Errorf("reading lease: %w", err))
			return
		}
		lease, ok := obj.(*coordinationv1.Lease)
		if !ok || ptr.Deref(lease.Spec.HolderIdentity, "") != e.cfg.Identity {
			return
		}
		now := metav1.NewMicroTime(e.cfg.Clock.Now())
		lease.Spec = coordinationv1.LeaseSpec{
			HolderIdentity:       ptr.To(""),
			LeaseDurationSeconds: ptr.To[int32](1),
			AcquireTime:          &now,
			RenewTime:            &now,
			LeaseTransitions:     lease.Spec.LeaseTransitions,
		}
		out, err := e.api.Apply(ctx, lease, Manager)
		if err == nil {
			e.observe(out, now.Time)
			e.log.Info("leader election: released the lease")
			return
		}
		// A renewal that ended with ctx may still have landed.
		if !apierrors.IsConflict(err) {
			e.log.Warn("leader election: releasing the lease", "err", fmt.Errorf("updating lease: %w", err))
			return
		}
	}
}
