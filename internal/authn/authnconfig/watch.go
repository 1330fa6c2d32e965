package authnconfig

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/portcullis/portcullis/internal/configfile"
)

// reloader applies new content of the configuration file; a
// configfile.Watcher calls it, one change at a time.
type reloader struct {
	a        *Authenticator
	start    func(*generation)
	retiring []retiring
}

// retiring is a previous configuration's authenticators, stopped by the
// timer at the deadline.
type retiring struct {
	timer    *time.Timer
	deadline time.Time
}

// watch follows the file until ctx ends: file events in its directory
// (editors that replace the file, ConfigMap volumes that swap a symlink)
// and a re-read every PollInterval in case events are lost.
func (r *reloader) watch(ctx context.Context) {
	defer func() {
		// Run's context is ending; everything is being stopped anyway.
		for _, rt := range r.retiring {
			rt.timer.Stop()
		}
	}()
	w := &configfile.Watcher{
		Path:     r.a.path,
		Interval: r.a.opts.PollInterval,
		Apply:    r.apply,
		Metrics:  r.a.metrics,
		Logger:   r.a.opts.Logger,
		What:     "authentication config",
	}
	w.Run(ctx, r.a.initial.hash)
}

// apply builds and swaps in the configuration of data. As in
// kube-apiserver: content that does not decode or validate waits for the
// next change, while issuers that do not answer in time are retried (a
// file that cannot be read is retried by the watcher).
func (r *reloader) apply(ctx context.Context, data []byte, hash string) error {
	a := r.a
	cfg, err := Parse(data, LoadOptions{DisallowedIssuers: a.opts.DisallowedIssuers})
	if err == nil && !reflect.DeepEqual(a.initial.Anonymous(), cfg.Anonymous()) {
		err = ErrAnonymousChanged
	}
	if err != nil {
		return err
	}
	cfg.path = a.path
	retire, err := a.apply(ctx, cfg, r.start)
	if err != nil {
		return fmt.Errorf("%w: issuers of the new configuration not ready: %w", configfile.ErrRetry, err)
	}
	now := time.Now()
	live := r.retiring[:0]
	for _, rt := range r.retiring {
		if now.Before(rt.deadline) {
			live = append(live, rt)
		}
	}
	r.retiring = append(live, retiring{timer: time.AfterFunc(a.opts.RetireAfter, retire), deadline: now.Add(a.opts.RetireAfter)})
	a.opts.Logger.Info("authentication config: issuers of the new configuration ready", "path", a.path, "hash", hash, "issuers", cfg.Issuers())
	return nil
}
