// Package etcd is the storage.Store over an etcd v3 cluster, laid out as
// kube-apiserver lays out its data, so that portcullis replicas and
// kube-apiserver replicas can serve one cluster side by side.
//
// # Keys, values and revisions
//
// Keys are etcd keys verbatim: the caller puts kube-apiserver's prefix
// (/registry/...) in them. Values are stored verbatim. A KeyValue's
// CreateRevision and ModRevision are etcd's, and the store's revision is
// etcd's cluster-wide revision, so resourceVersions mean the same to every
// server on the cluster. Each write is one etcd request (a transaction for
// the guarded ones) that etcd acknowledges after raft commit, so a write
// that returned is durable:
//
//   - Create: If(CreateRevision(key) = 0) Then Put, else ErrKeyExists;
//   - Update: If(ModRevision(key) = expected) Then Put Else Get, which
//     tells ErrConflict from ErrNotFound without a second round trip;
//   - Delete: the same guard (none for revision 0), returning the deleted
//     value and the transaction's revision;
//   - List: one range read of the prefix from max(prefix, StartKey) with
//     etcd's limit, count and revision; Remaining is etcd's count minus the
//     page.
//
// etcd's "compacted" and "future revision" errors become ErrCompacted and
// ErrFutureRevision, wrapped with the call that met them.
//
// # Watches
//
// Watch first reads once: from now, the read's header is the revision
// after which to start, so that a write that already returned is never
// reported; from a revision, the read at that revision fails at once if it
// is compacted (etcd itself would accept a watch from the compacted
// revision, which is one more than the caller's revision, and reports
// compaction only in a later response). Then it opens one etcd watch
// (prefix, previous values, require-leader) served by one goroutine,
// which translates etcd's events: a delete's KV is the key with its last
// value and the delete's revision. A compaction met mid-watch ends the
// watch with ErrCompacted, a watch cancelled by etcd (lost leader, for
// example) with ErrWatchEnded, Close with ErrClosed when the channel has
// room for it; the caller's context ends it silently. Close waits for
// every watch goroutine.
//
// # Compaction
//
// Compact is etcd's compaction: cluster-wide, and compacting at or below
// an earlier compaction is not an error. etcd has no request that tells
// the compacted revision, so Revision reports the highest one this store
// has learned of: its own compactions, those its watches met, and the
// value of compact_rev_key, which kube-apiserver's compactors write.
//
// With a compaction interval the store runs kube-apiserver's protocol
// (compact.go), so that portcullis and kube-apiserver replicas compact
// together, about once per interval between them, to the revision seen
// one interval earlier.
//
// # Lifecycle and health
//
// Open builds the TLS configuration from the CA, certificate and key files
// (--etcd-cafile, --etcd-certfile, --etcd-keyfile), dials, checks that the
// cluster answers, and returns a store that owns its client. New wraps a
// client made elsewhere and never closes it. Check is kube-apiserver's
// etcd probe for /livez and /readyz (its readiness probe is the same
// request): a read of the health key, failing with "error getting data
// from etcd: ...".
//
// # Not supported
//
// Leases (kube-apiserver stores Events with a TTL; this Store has no TTL),
// etcd authentication by user and password, and values above etcd's
// request size limit (etcd refuses them; the error is passed on). The
// store does not transform values: encryption at rest sits above it.
package etcd
