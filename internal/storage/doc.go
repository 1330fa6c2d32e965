// Package storage defines the persistence the API server is built on: a
// small, revisioned key-value Store.
//
// # Model
//
// Every successful write (Create, Update, Delete) advances one store-wide
// revision by exactly one; the revision of a key's last write is its
// ModRevision, which the API exposes as resourceVersion. Reads are served at
// a revision: List can read the state as of any retained past revision, so
// that paginated lists see one consistent snapshot. Compact discards history
// older than a revision; reads and watches that would need it fail with
// ErrCompacted, which the API turns into 410 Gone.
//
// # Watches
//
// Watch streams every change under a prefix after a given revision, first
// replaying retained history and then following live writes, in revision
// order and without gaps. A watch ends by closing its channel, after an
// EventError when the store ended it (for example ErrWatcherTooSlow).
// Values carried by events are shared between watchers and must be treated
// as read-only.
//
// # Implementations
//
// The embedded implementation lives in storage/bbolt; every implementation
// must pass the conformance suite in storage/storagetest. Errors are the
// sentinels of errors.go, wrapped with %w and matched with errors.Is.
package storage
