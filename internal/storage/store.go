package storage

import "context"

// KeyValue is one stored value with the revisions that describe its history.
// ModRevision is what the API calls the object's resourceVersion.
type KeyValue struct {
	Key            string
	Value          []byte
	CreateRevision int64
	ModRevision    int64
	// Stale is set by a store that transforms values (encryption at rest)
	// when Value was read through something other than what it writes now,
	// an older key for example: a rewrite is due even if Value is unchanged.
	Stale bool
}

// EventType says what happened to a key.
type EventType int

const (
	// EventCreate is the first write of a key (or the first after a delete).
	EventCreate EventType = iota + 1
	// EventUpdate replaced the value of an existing key.
	EventUpdate
	// EventDelete removed a key.
	EventDelete
	// EventError ends a watch: Err says why (for example ErrCompacted when a
	// slow watcher fell behind compaction, or ErrWatcherTooSlow).
	EventError
)

// Event is one change seen by a watch, in revision order.
//
// For EventCreate and EventUpdate, KV is the new value and PrevKV (on update)
// the value it replaced. For EventDelete, KV carries the deleted key with the
// last value it had and ModRevision set to the revision of the delete; PrevKV
// is that same last value with its original revisions.
type Event struct {
	Type   EventType
	KV     KeyValue
	PrevKV *KeyValue
	Err    error
}

// ListOptions narrows a List.
type ListOptions struct {
	// Revision lists the state as of that revision; 0 means the current one.
	// A compacted revision gives ErrCompacted, a future one ErrFutureRevision.
	Revision int64
	// Limit caps the number of values returned; 0 means no cap.
	Limit int64
	// StartKey resumes a paginated list: only keys >= StartKey are returned.
	StartKey string
}

// ListResult is one page of a List.
type ListResult struct {
	KVs []KeyValue
	// Revision is the revision the list was served at: resume later pages
	// at this same revision for a consistent snapshot.
	Revision int64
	// More is true when keys after the last returned one exist under the prefix.
	More bool
	// Remaining counts the keys under the prefix after the last returned one.
	Remaining int64
}

// Store is the persistence the API server needs. Keys are slash-separated
// paths; prefixes passed to List and Watch end in "/". Every write returns
// only after it is durable. Implementations are safe for concurrent use.
type Store interface {
	// Get returns the current value of key, or ErrNotFound.
	Get(ctx context.Context, key string) (KeyValue, error)
	// List returns the values whose keys start with prefix, in key order.
	List(ctx context.Context, prefix string, opts ListOptions) (ListResult, error)
	// Create writes key if it does not exist (else ErrKeyExists) and returns the new KeyValue.
	Create(ctx context.Context, key string, value []byte) (KeyValue, error)
	// Update replaces key's value if its ModRevision equals expectedRevision
	// (ErrConflict otherwise, ErrNotFound if it does not exist); it returns the new KeyValue.
	Update(ctx context.Context, key string, value []byte, expectedRevision int64) (KeyValue, error)
	// Delete removes key if its ModRevision equals expectedRevision, or
	// unconditionally when expectedRevision is 0. It returns the deleted
	// value (with its last revisions) and the revision of the delete.
	Delete(ctx context.Context, key string, expectedRevision int64) (prev KeyValue, revision int64, err error)
	// Watch sends every change under prefix with a revision greater than
	// revision (0 = from now), first replaying retained history. The channel
	// is closed when ctx is done or after an EventError. A compacted start
	// revision gives ErrCompacted at once.
	Watch(ctx context.Context, prefix string, revision int64) (<-chan Event, error)
	// Compact discards history before revision; later reads and watches
	// at revisions below it give ErrCompacted.
	Compact(ctx context.Context, revision int64) error
	// Revision returns the current revision (0 for an empty new store) and
	// the oldest revision still retained (the compacted revision).
	Revision(ctx context.Context) (current, compacted int64, err error)
	// Close stops watches and releases resources; writes after Close fail with ErrClosed.
	Close() error
}
