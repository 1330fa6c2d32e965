package bbolt

import (
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Options tune a Store. The zero value is usable: every zero field takes
// the default documented on it, and automatic compaction is off.
type Options struct {
	// LockTimeout bounds the wait for the file lock held by another
	// process. Default 10s.
	LockTimeout time.Duration
	// InitialMmapSize is the size of the first memory map. Growing the map
	// waits for every open read transaction, so a map larger than the data
	// keeps long lists from stalling writers. Default 1 GiB.
	InitialMmapSize int
	// MaxValueSize bounds a stored value. Default 16 MiB.
	MaxValueSize int
	// MaxBatch bounds how many writes share one transaction and fsync.
	// Default 1024.
	MaxBatch int
	// WatchBuffer is how many events may wait for a watcher that is not
	// reading; one more ends that watch with storage.ErrWatcherTooSlow.
	// Default 10000.
	WatchBuffer int

	// CompactInterval turns on automatic compaction: every interval the
	// store compacts. 0 leaves compaction to the caller.
	CompactInterval time.Duration
	// CompactRetainRevisions, when positive, makes each automatic compaction
	// keep the last N revisions. When 0, each compaction keeps the history
	// written since the previous tick, so at least one interval of history
	// survives (kube-apiserver compacts this way, every 5 minutes).
	CompactRetainRevisions int64

	// Logger receives errors of background work. Default slog.Default().
	Logger *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.LockTimeout == 0 {
		o.LockTimeout = 10 * time.Second
	}
	if o.InitialMmapSize == 0 {
		o.InitialMmapSize = 1 << 30
	}
	if o.MaxValueSize == 0 {
		o.MaxValueSize = 16 << 20
	}
	if o.MaxBatch == 0 {
		o.MaxBatch = 1024
	}
	if o.WatchBuffer == 0 {
		o.WatchBuffer = 10000
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// Validate reports every bad field, with its path.
func (o Options) Validate() error {
	var errs []error
	bad := func(field string, v any) {
		errs = append(errs, fmt.Errorf("%w: options.%s: %v must not be negative", ErrInvalidArgument, field, v))
	}
	if o.LockTimeout < 0 {
		bad("lockTimeout", o.LockTimeout)
	}
	if o.InitialMmapSize < 0 {
		bad("initialMmapSize", o.InitialMmapSize)
	}
	if o.MaxValueSize < 0 {
		bad("maxValueSize", o.MaxValueSize)
	}
	if o.MaxValueSize > maxValueSize {
		errs = append(errs, fmt.Errorf("%w: options.maxValueSize: %d is above the limit %d", ErrInvalidArgument, o.MaxValueSize, maxValueSize))
	}
	if o.MaxBatch < 0 {
		bad("maxBatch", o.MaxBatch)
	}
	if o.WatchBuffer < 0 {
		bad("watchBuffer", o.WatchBuffer)
	}
	if o.CompactInterval < 0 {
		bad("compactInterval", o.CompactInterval)
	}
	if o.CompactRetainRevisions < 0 {
		bad("compactRetainRevisions", o.CompactRetainRevisions)
	}
	return errors.Join(errs...)
}
