package storage

import "errors"

// Sentinel errors of every Store implementation; match them with errors.Is.
var (
	ErrNotFound       = errors.New("storage: key not found")
	ErrKeyExists      = errors.New("storage: key already exists")
	ErrConflict       = errors.New("storage: revision conflict")
	ErrCompacted      = errors.New("storage: revision has been compacted")
	ErrFutureRevision = errors.New("storage: revision is in the future")
	ErrWatcherTooSlow = errors.New("storage: watcher fell too far behind")
	ErrClosed         = errors.New("storage: store is closed")
)
