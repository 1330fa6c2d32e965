// Package bbolt is the embedded storage.Store: one bbolt file, durable
// writes, revisioned reads and watches, with no other process to run.
//
// # Layout
//
// Three buckets (see record.go for the encoding):
//
//   - keys: key -> the current record {createRev, modRev, value};
//   - log:  revision -> the change made at that revision, with the record
//     before and after it;
//   - meta: the data format, the current and the compacted revision.
//
// Get and current lists read the keys bucket. A list at a past revision
// overlays the keys changed since then with the state their first later log
// entry says they had; watches replay the log. Compact(rev) drops log
// entries up to rev, which neither needs for revisions >= rev.
//
// # Writes
//
// One committer goroutine owns writing. Writers queue their operation and
// wait; the committer drains the queue into one bbolt transaction, checks
// each operation's precondition against the state the earlier ones left,
// assigns revisions in queue order, commits (fsync) once for all of them,
// publishes the events and only then answers the writers. A write has
// returned only once it is on disk.
//
// # Watches
//
// The committer hands events to every matching watcher's bounded queue
// without blocking; each watch has a goroutine that moves its queue to the
// caller's channel. A new watch registers first, noting the last published
// revision, then replays the log up to it in short read transactions, so it
// sees every change exactly once. A watcher whose queue overflows is ended
// with storage.ErrWatcherTooSlow instead of slowing writers down.
//
// # Lifecycle
//
// Open starts the committer and the optional compaction loop; Close stops
// them and every watch, then closes the file. Check verifies bbolt's pages
// and this layout's invariants, for tests and recovery tooling.
package bbolt
