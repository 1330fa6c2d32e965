package storage

import (
	"errors"
	"strconv"
)

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

// CorruptError is a value the store holds but cannot give back readable:
// it does not decrypt under the configured encryption, for example. Such
// an object can only be removed by an unsafe delete
// (ignoreStoreReadErrorWithClusterBreakingPotential).
type CorruptError struct {
	Key string
	Err error
	// Deleted marks the delete event of a corrupt value, which a watch
	// reports as such (kube-apiserver's wording).
	Deleted bool
}

func (e *CorruptError) Error() string {
	msg := "unable to transform key \"" + e.Key + "\": " + e.Err.Error()
	if e.Deleted {
		return "saw a DELETED event, but object data is corrupt - " + msg
	}
	return msg
}

func (e *CorruptError) Unwrap() error { return e.Err }

// MaxCorruptInList is how many corrupt values a list reports before it
// stops looking (kube-apiserver's limit).
const MaxCorruptInList = 100

// CorruptListError is a list that met corrupt values: all of them up to
// MaxCorruptInList (TooMany then says the search stopped early).
type CorruptListError struct {
	Errs    []*CorruptError
	TooMany bool
}

func (e *CorruptListError) Error() string {
	msg := e.Errs[0].Error()
	if len(e.Errs) > 1 {
		msg += " (and " + strconv.Itoa(len(e.Errs)-1) + " more)"
	}
	return msg
}
