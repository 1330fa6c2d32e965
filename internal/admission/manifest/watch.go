package manifest

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/portcullis/portcullis/internal/configfile"
)

// DefaultPollInterval is the reference's fallback poll period.
const DefaultPollInterval = time.Minute

// settle is how long a burst of file events is left to finish before the
// directory is read, so one atomic rename costs one reload.
const settle = 50 * time.Millisecond

// Option adjusts a Watcher.
type Option func(*Watcher)

// WithServerID sets the id whose hash labels the metrics (apiserver_id_hash).
func WithServerID(id string) Option { return func(w *Watcher) { w.serverID = id } }

// WithPollInterval replaces DefaultPollInterval; tests use it.
func WithPollInterval(d time.Duration) Option { return func(w *Watcher) { w.interval = d } }

// Watcher keeps the configuration of one plugin's directory current. The
// Set in force is swapped atomically, so a reader sees the old one or the
// new one whole; a directory that fails to load leaves the old one in force.
type Watcher struct {
	dir      string
	plugin   Kind
	validate ValidateFunc
	onChange func(prev, next *Set) error
	log      *slog.Logger
	metrics  *configfile.Metrics
	serverID string
	interval time.Duration

	current atomic.Pointer[Set]
	mu      sync.Mutex // serializes checks and onChange calls
	tried   string     // hash of the content last loaded whole
}

// NewWatcher loads dir once; an error here must stop start-up. onChange is
// called with (nil, initial) before NewWatcher returns and with (prev, next)
// for every reload, never concurrently; it may be nil. It puts the new Set
// to use (builds the engine that enforces it): when it fails, the reload
// has failed and the previous Set stays in force. reg may be nil (no
// metrics), log may be nil (discarded).
func NewWatcher(dir string, plugin Kind, validate ValidateFunc, onChange func(prev, next *Set) error, reg prometheus.Registerer, log *slog.Logger, opts ...Option) (*Watcher, error) {
	w := &Watcher{dir: dir, plugin: plugin, validate: validate, onChange: onChange, log: log, interval: DefaultPollInterval}
	for _, o := range opts {
		o(w)
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	w.log = w.log.With("plugin", string(plugin), "dir", dir)
	if err := plugin.valid(); err != nil {
		return nil, err
	}
	// The four plugins' watchers share one registry: each plugin label
	// has collectors of its own there, found again by a later watcher.
	m, err := configfile.NewMetrics(reg, configfile.MetricsOptions{
		Controller:   "manifest_admission_config_controller",
		ReloadsHelp:  "Total number of automatic reloads of admission manifest configuration split by status, plugin, and apiserver identity.",
		LastTimeHelp: "Timestamp of the last automatic reload of admission manifest configuration split by status, plugin, and apiserver identity.",
		InfoHelp:     "Information about the last applied admission manifest configuration with hash as label, split by plugin and apiserver identity.",
		APIServerID:  w.serverID,
		ConstLabels:  prometheus.Labels{"plugin": string(plugin)},
	})
	if err != nil {
		return nil, fmt.Errorf("manifest metrics: %w", err)
	}
	w.metrics = m
	set, err := Load(dir, plugin, validate)
	if err != nil {
		return nil, err
	}
	if w.onChange != nil {
		if err := w.onChange(nil, set); err != nil {
			return nil, err
		}
	}
	w.tried = set.Hash
	w.current.Store(set)
	// The reference counts the initial load as a successful reload.
	w.metrics.Success(set.Hash)
	w.log.Info("loaded static admission manifests", "objects", len(set.Objects), "hash", set.Hash)
	return w, nil
}

// Current returns the Set in force.
func (w *Watcher) Current() *Set { return w.current.Load() }

// Run follows the directory until ctx ends: on every file event in it (which
// also catches atomic renames and ConfigMap symlink swaps) and every poll
// interval. If events cannot be watched, polling alone goes on.
func (w *Watcher) Run(ctx context.Context) {
	var events <-chan fsnotify.Event
	var watchErrs <-chan error
	if fw, err := fsnotify.NewWatcher(); err != nil {
		w.log.Warn("cannot watch static manifests; polling only", "err", err)
	} else {
		defer fw.Close()
		if err := fw.Add(w.dir); err != nil {
			w.log.Warn("cannot watch static manifests; polling only", "err", err)
		} else {
			events, watchErrs = fw.Events, fw.Errors
		}
	}
	// Changes made between the initial load and the watch being in place
	// raised no event: look once now.
	w.Check()
	tick := time.NewTicker(w.interval)
	defer tick.Stop()
	settleTimer := time.NewTimer(time.Hour)
	settleTimer.Stop()
	defer settleTimer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			w.Check()
		case <-settleTimer.C:
			w.Check()
		case _, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			settleTimer.Reset(settle)
		case err, ok := <-watchErrs:
			if !ok {
				watchErrs = nil
				continue
			}
			w.log.Warn("watching static manifests", "err", err)
		}
	}
}

// Check reloads the directory if its content hash changed since it was
// last read whole and reports whether a new Set was put in force. As in
// kube-apiserver, a directory that does not load is not remembered: it is
// tried, logged and counted as a failure at every check (each file event
// and poll) until it is fixed; content that loaded but could not be put in
// force is not tried again.
func (w *Watcher) Check() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	hash, err := Hash(w.dir)
	if err != nil {
		w.metrics.Failure()
		w.log.Error("static admission manifests not reloaded; the previous configuration stays in force", "err", err)
		return false
	}
	if hash == w.tried {
		return false
	}
	set, err := Load(w.dir, w.plugin, w.validate)
	if err != nil {
		w.metrics.Failure()
		w.log.Error("static admission manifests not reloaded; the previous configuration stays in force", "err", err)
		return false
	}
	// Load read the files again; remember what it actually used, which
	// may be newer than hash if a writer raced us.
	w.tried = set.Hash
	if w.onChange != nil {
		if err := w.onChange(w.current.Load(), set); err != nil {
			w.metrics.Failure()
			w.log.Error("static admission manifests not reloaded; the previous configuration stays in force", "err", err)
			return false
		}
	}
	w.current.Store(set)
	w.metrics.Success(set.Hash)
	w.log.Info("reloaded static admission manifests", "objects", len(set.Objects), "hash", set.Hash)
	return true
}
