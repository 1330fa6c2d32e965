// Package memory is a storage.Store that lives in memory only: the store
// of offline runs (`portcullis admit`, `portcullis test`), which start an
// empty cluster, run their requests and throw it away, and of tests that
// need a Store but not a file. New cannot fail and costs a few
// allocations.
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
// A watch copies the events it replays and registers for the live ones
// in one critical section under the write lock, so that nothing falls
// between the two and nothing comes twice. Writers append to each
// matching watch's queue and never wait for it: a watch whose queue
// holds WatchBuffer events when another comes ends with
// storage.ErrWatcherTooSlow. Each watch has one goroutine that hands its
// events over; it ends with its context or with Close, which waits for it.
//
// Nothing is durable: the Store's "acknowledged writes survive" promise
// holds only for the life of the process, which is all an offline run
// needs.
package memory
