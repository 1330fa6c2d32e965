package configfile

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watcher hands each new content of a file to Apply.
type Watcher struct {
	// Path is the file.
	Path string
	// Interval is how often the file is re-read in case an event was
	// missed (kube-apiserver polls once a minute).
	Interval time.Duration
	// Apply takes new content and its hash; an error keeps the
	// configuration in use (see ErrRetry and ErrUnchanged).
	Apply func(ctx context.Context, data []byte, hash string) error
	// Metrics may be nil.
	Metrics *Metrics
	// Logger may be nil: slog.Default().
	Logger *slog.Logger
	// What names the configuration in logs: "encryption config".
	What string
	// Watching, if set, is called once Run has its file watch in place
	// (or has given up on it and polls only): a change made after that
	// does not wait for the poll. Tests synchronise on it.
	Watching func()
}

// Run follows the file until ctx is done, starting from the content of
// hash (the one loaded at start). It watches the file's directory, so that
// editors that replace the file and ConfigMap volumes that swap a symlink
// are noticed too.
func (w *Watcher) Run(ctx context.Context, hash string) {
	log := w.logger()
	var events <-chan fsnotify.Event
	var errs <-chan error
	fw, err := fsnotify.NewWatcher()
	if err == nil {
		if err = fw.Add(filepath.Dir(w.Path)); err != nil {
			_ = fw.Close()
		}
	}
	if err != nil {
		log.Warn(w.What+": watching the file failed, polling only", "err", err)
	} else {
		defer fw.Close()
		events, errs = fw.Events, fw.Errors
	}
	if w.Watching != nil {
		w.Watching()
	}
	tick := time.NewTicker(w.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case _, ok := <-events:
			if !ok {
				events = nil
				continue
			}
		case err, ok := <-errs:
			if !ok {
				errs = nil
			} else {
				log.Warn(w.What+": watching the file", "err", err)
			}
			continue
		}
		hash, _ = w.check(ctx, log, hash)
	}
}

// Check is one look at the file, as Run takes at every event and poll:
// it applies the file if its content differs from the content of tracked,
// logs and records the outcome, and returns the hash now tracked and why
// changed content was not applied (nil when it was, or when nothing
// changed). Components that drive reloads themselves, and tests, call it.
func (w *Watcher) Check(ctx context.Context, tracked string) (string, error) {
	return w.check(ctx, w.logger(), tracked)
}

func (w *Watcher) logger() *slog.Logger {
	log := w.Logger
	if log == nil {
		log = slog.Default()
	}
	return log.With("path", w.Path)
}

func (w *Watcher) check(ctx context.Context, log *slog.Logger, tracked string) (string, error) {
	data, err := os.ReadFile(w.Path)
	if err != nil {
		w.Metrics.Failure()
		log.Error(w.What+": reading the file failed, keeping the current configuration", "err", err)
		return tracked, err
	}
	hash := Hash(data)
	if hash == tracked {
		return tracked, nil
	}
	err = w.Apply(ctx, data, hash)
	switch {
	case err == nil:
		w.Metrics.Success(hash)
		log.Info(w.What+": reloaded", "hash", hash)
		return hash, nil
	case errors.Is(err, ErrUnchanged):
		log.Debug(w.What+": new content, same configuration; nothing to reload", "hash", hash)
		return hash, nil
	case ctx.Err() != nil:
		// Stopping: the content was not judged, so it is not tracked.
		return tracked, err
	}
	// Counted before it is logged, so that whoever reads the log finds
	// the metric already up to date.
	w.Metrics.Failure()
	log.Error(w.What+": not applied, keeping the current configuration", "hash", hash, "err", err)
	if errors.Is(err, ErrRetry) {
		return tracked, err
	}
	return hash, err
}
