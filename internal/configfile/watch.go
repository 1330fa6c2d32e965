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

// ErrRetry marks an Apply error worth retrying with the same content (a
// plugin that is not ready yet); other errors wait for new content.
var ErrRetry = errors.New("retry")

// Watcher hands each new content of a file to Apply.
type Watcher struct {
	// Path is the file.
	Path string
	// Interval is how often the file is re-read in case an event was
	// missed (kube-apiserver polls once a minute).
	Interval time.Duration
	// Apply takes new content and its hash; an error keeps the
	// configuration in use.
	Apply func(ctx context.Context, data []byte, hash string) error
	// Metrics may be nil.
	Metrics *Metrics
	Logger  *slog.Logger
	// What names the configuration in logs: "encryption config".
	What string
}

// Run follows the file until ctx is done, starting from the content of
// hash (the one loaded at start). It watches the file's directory, so that
// editors that replace the file and ConfigMap volumes that swap a symlink
// are noticed too.
func (w *Watcher) Run(ctx context.Context, hash string) {
	log := w.Logger.With("path", w.Path)
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
		hash = w.check(ctx, log, hash)
	}
}

// check applies the file if its content differs from the content of
// tracked, and returns the hash now tracked.
func (w *Watcher) check(ctx context.Context, log *slog.Logger, tracked string) string {
	data, err := os.ReadFile(w.Path)
	if err != nil {
		log.Error(w.What+": reading the file failed, keeping the current configuration", "err", err)
		w.Metrics.Failure()
		return tracked
	}
	hash := Hash(data)
	if hash == tracked {
		return tracked
	}
	if err := w.Apply(ctx, data, hash); err != nil {
		if ctx.Err() != nil {
			return tracked
		}
		log.Error(w.What+": not applied, keeping the current configuration", "hash", hash, "err", err)
		w.Metrics.Failure()
		if errors.Is(err, ErrRetry) {
			return tracked
		}
		return hash
	}
	log.Info(w.What+": reloaded", "hash", hash)
	w.Metrics.Success(hash)
	return hash
}
