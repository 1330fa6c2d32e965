// Package leaderelection runs portcullis's in-process controllers on
// exactly one replica at a time: the replicas that share one etcd elect a
// leader on a coordination.k8s.io/v1 Lease, as kube-controller-manager
// does, and only the leader runs the controllers.
//
// # What runs under the lease
//
// Elector.Run calls a lead function while it holds the lease, and cancels
// lead's context as soon as it may no longer hold it. The controllers
// that must not run twice (namespace deletion, ClusterRole aggregation,
// service accounts, resource quota, the root CA publisher, policy
// status...) go inside lead, usually joined by Group. Work every replica
// does for itself (caches, bootstrap that is safe to repeat) stays
// outside.
//
// # The Lease
//
// The leader writes spec.holderIdentity (its identity),
// spec.leaseDurationSeconds, spec.acquireTime (when it took the lease),
// spec.renewTime (its last renewal) and spec.leaseTransitions (counted up
// each time the holder changes), the fields client-go's LeaseLock
// writes. Every write is guarded by the resourceVersion the elector just
// read, so of two replicas that see a free lease only one write succeeds.
// Coordinated leader election (spec.strategy, spec.preferredHolder) is
// not supported.
//
// # Timing
//
// The defaults are kube-controller-manager's: LeaseDuration 15s,
// RenewDeadline 10s, RetryPeriod 2s. A candidate tries every RetryPeriod
// (with jitter, so that replicas started together spread out); the
// leader renews every RetryPeriod and gives up leading when no renewal
// has succeeded for RenewDeadline, or at once when the Lease names
// another holder. Because LeaseDuration exceeds RenewDeadline, a leader
// cut off from the store stops before any other replica may start.
//
// # Why the observer's clock decides expiry
//
// A candidate does not trust spec.renewTime: the holder's clock may be
// ahead of or behind its own. It records, by its own clock, when it last
// saw the lease change, and holds the lease to be free only when
// leaseDurationSeconds have passed since then without a change, or when
// holderIdentity is empty. Clock skew between replicas therefore cannot
// end a live leader's term early; only the rate at which clocks run
// matters.
//
// # Stopping
//
// When Run's context ends while leading, Run waits for lead to return and
// then releases the lease (empty holderIdentity, leaseDurationSeconds 1)
// so that another replica takes over at once rather than after
// LeaseDuration, as client-go's ReleaseOnCancel does. A lead that returns
// on its own while still leading also releases: the work it stood for is
// no longer being done here, and another replica may do it. Run returns
// only after lead has returned.
package leaderelection
