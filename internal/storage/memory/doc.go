// Package memory is a storage.Store that lives in memory only: the store
// of offline runs (`portcullis admit`, `portcullis test`), which start an
// empty cluster, run their requests and throw it away.
//
// # Layout
//
// Every key keeps its versions in revision order (a delete is a version
// too, a tombstone), and the keys are kept sorted, so that a list at any
// retained revision is a binary search and a walk. A log of every event
// in revision order serves watch replay. Compact drops versions and
// events below its revision that no read at or above it needs.
//
// # Watches
//
// A watch copies the replayed events under the read lock and registers
// for the live ones in the same critical section, so that nothing falls
// between the two. Each watch has one goroutine that hands events to the
// caller; a writer never waits for it: a watch whose queue is full ends
// with storage.ErrWatcherTooSlow.
//
// Nothing is durable: the Store's "acknowledged writes survive" promise
// holds only for the life of the process, which is all an offline run
// needs.
package memory
