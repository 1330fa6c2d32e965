package authnconfig

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watcher notices changes of the configuration file.
type watcher struct {
	a       *Authenticator
	start   func(*generation)
	tracked string // hash of the last content acted upon

	retiring []retiring
}

// retiring is a previous configuration's authenticators, stopped by the
// timer at the deadline.
type retiring struct {
	timer    *time.Timer
	deadline time.Time
}

// run watches the file's directory, so that editors that replace the file
// and Kubernetes' ConfigMap volumes (which swap a symlink) are noticed
// too, and re-reads the file every PollInterval in case events are lost.
func (w *watcher) run(ctx context.Context) {
	log := w.a.opts.Logger.With("path", w.a.path)
	var events <-chan fsnotify.Event
	var errs <-chan error
	fw, err := fsnotify.NewWatcher()
	if err == nil {
		if err = fw.Add(filepath.Dir(w.a.path)); err != nil {
			_ = fw.Close()
		}
	}
	if err != nil {
		log.Warn("authentication config: watching the file failed, polling only", "err", err)
	} else {
		defer fw.Close()
		events, errs = fw.Events, fw.Errors
	}
	defer func() {
		// Run's context is ending; everything is being stopped anyway.
		for _, r := range w.retiring {
			r.timer.Stop()
		}
	}()

	tick := time.NewTicker(w.a.opts.PollInterval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			w.check(ctx)
		case _, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			w.check(ctx)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			log.Warn("authentication config: watching the file", "err", err)
		}
	}
}

// check re-reads the file and applies it when its content changed. As in
// kube-apiserver: a file that cannot be read, or whose issuers do not
// answer in time, is retried; a file that does not decode or validate is
// not retried until its content changes again.
func (w *watcher) check(ctx context.Context) {
	a := w.a
	log := a.opts.Logger.With("path", a.path)
	data, err := os.ReadFile(a.path)
	if err != nil {
		log.Error("authentication config: reading the file failed, keeping the current configuration", "err", err)
		a.metrics.failure()
		return
	}
	hash := Hash(data)
	if hash == w.tracked {
		return
	}
	cfg, err := Parse(data, LoadOptions{DisallowedIssuers: a.opts.DisallowedIssuers})
	if err == nil && !reflect.DeepEqual(a.initial.Anonymous(), cfg.Anonymous()) {
		err = ErrAnonymousChanged
	}
	if err != nil {
		log.Error("authentication config: invalid, keeping the current configuration", "hash", hash, "err", err)
		a.metrics.failure()
		w.tracked = hash
		return
	}
	cfg.path = a.path
	retire, err := a.apply(ctx, cfg, w.start)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		log.Error("authentication config: issuers of the new configuration not ready, keeping the current one", "hash", hash, "err", err)
		a.metrics.failure()
		return
	}
	w.tracked = hash
	now := time.Now()
	live := w.retiring[:0]
	for _, r := range w.retiring {
		if now.Before(r.deadline) {
			live = append(live, r)
		}
	}
	w.retiring = append(live, retiring{timer: time.AfterFunc(a.opts.RetireAfter, retire), deadline: now.Add(a.opts.RetireAfter)})
	log.Info("authentication config: reloaded", "hash", hash, "issuers", cfg.Issuers())
	a.metrics.success(hash)
}
