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
// Open creates a missing file whole (the layout is written to a temporary
// file that is then linked into place, so a crash leaves no file or a whole
// store), or vets an existing one (see below), then starts the committer
// and the optional compaction loop; Close stops them and every watch, then
// closes the file. Check verifies bbolt's pages and this layout's
// invariants, for tests and recovery tooling.
//
// # Damaged files
//
// bbolt trusts its file: it maps it into memory, so a page past the end
// of a truncated file faults (SIGBUS), and it panics on a garbled page,
// even in the goroutine that rebuilds the freelist on open, where no
// recover reaches. So Open vets an existing file before bbolt maps it
// (pages.go), under bbolt's shared lock so that no writer moves pages
// under the walk, and refuses with:
//
//   - ErrEmptyFile: 0 bytes. Open never leaves such a file, so its data,
//     if it had any, is gone; remove it to start an empty store.
//   - ErrNotBolt: no bbolt meta page (and no bbolt page) at the start, or
//     not a regular file.
//   - ErrUnsupportedFormat: another bbolt format version, or a store
//     format this version does not read.
//   - ErrDamaged: truncated below the pages its meta page counts; both
//     meta pages unreadable; or a reachable page that is out of range,
//     not the page its header says, of the wrong type, reached twice, with
//     elements, keys or values outside itself, with keys out of order or
//     empty, or a malformed bucket value. The error names the page, its
//     bucket and its parent.
//   - ErrNotStore: a bbolt file holding other buckets than a store's.
//
// One unreadable meta page is not refused: bbolt keeps two so that a
// commit torn by a crash leaves the previous one, and opens at the other.
// Open logs a warning, since if the unreadable page held the last commit
// its writes are lost; the next commit rewrites the page.
//
// Vetting reads every page in use, as bbolt's own open does to rebuild
// the freelist: its cost grows with the data (docs/performance.md). It
// checks structure, not values: a value garbled in place decodes wrong or
// fails to decode (ErrCorrupt), like any other.
//
// While serving, every read and write runs under a guard that turns a
// bbolt panic on a damaged page, or a fault on a page of a file truncated
// under the store, into an error wrapping ErrDamaged, logged with the file
// name, instead of a crash. Reads and writes that do not touch the damage
// go on working.
package bbolt
