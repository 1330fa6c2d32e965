package encryption

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/configfile"
	"github.com/portcullis/portcullis/internal/encryption/config"
	"github.com/portcullis/portcullis/internal/encryption/value"
	"github.com/portcullis/portcullis/internal/storage"
)

const (
	defaultKMSTimeout = 3 * time.Second
	// pollInterval is how often a reloaded file is re-read even without
	// a file event, as in kube-apiserver.
	pollInterval = time.Minute
	// retireAfter is the least time a KMS plugin dropped by a reload stays
	// connected, for the requests that started before the swap; a plugin
	// with a long timeout stays for two of them (a status poll and an
	// Encrypt), as kube-apiserver's grace period is twice the timeouts.
	retireAfter = 10 * time.Second
)

// Resource is one served resource and where its objects are stored.
type Resource struct {
	KeyPrefix     string
	GroupResource schema.GroupResource
}

// Options configure encryption at rest.
type Options struct {
	// ConfigFile is --encryption-provider-config.
	ConfigFile string
	// AutomaticReload is --encryption-provider-config-automatic-reload.
	AutomaticReload bool
	// Resources are the served resources; the configuration decides which
	// of them are encrypted.
	Resources []Resource
	// Root is the prefix of every object's key, ending in "/" (the
	// registry's root; "" is "/registry/"). Keys below it are
	// <resource path>/... for built-in resources and <group>/<resource>/...
	// for custom ones.
	Root string
	// Registerer takes the metrics; nil leaves them unregistered.
	Registerer prometheus.Registerer
	// APIServerID is hashed into the apiserver_id_hash labels.
	APIServerID string
	Logger      *slog.Logger
}

// Store is a storage.Store that encrypts the values of the resources the
// configuration names and passes the rest through.
type Store struct {
	inner   storage.Store
	opts    Options
	log     *slog.Logger
	metrics *value.Metrics
	reloads *configfile.Metrics

	st atomic.Pointer[state]

	mu      sync.Mutex // guards what follows: the KMS plugins' lifecycle
	kms     map[string]*kmsEntry
	runCtx  context.Context // set by Run; nil before and after
	retired []retired
}

var _ storage.Store = (*Store)(nil)

// New loads opts.ConfigFile and returns inner wrapped. It does not wait
// for KMS plugins: writes through a plugin that is not ready fail, and
// the kms-providers health check says why.
func New(inner storage.Store, opts Options) (*Store, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	data, err := os.ReadFile(opts.ConfigFile)
	if err != nil {
		return nil, fmt.Errorf("--encryption-provider-config: %w", err)
	}
	cfg, err := config.Parse(data, config.Options{Reload: opts.AutomaticReload})
	if err != nil {
		return nil, fmt.Errorf("--encryption-provider-config %s: %w", opts.ConfigFile, err)
	}
	s := &Store{inner: inner, opts: opts, log: opts.Logger, kms: map[string]*kmsEntry{}}
	if s.metrics, err = value.NewMetrics(opts.Registerer); err != nil {
		return nil, err
	}
	if s.reloads, err = configfile.NewMetrics(opts.Registerer, configfile.MetricsOptions{
		Controller:   "encryption_config_controller",
		ReloadsHelp:  "[ALPHA] Total number of reload successes and failures of encryption configuration split by apiserver identity.",
		LastTimeHelp: "[ALPHA] Timestamp of the last successful or failed automatic reload of encryption configuration split by apiserver identity.",
		InfoHelp:     "[ALPHA] Information about the last applied encryption configuration with hash as label, split by apiserver identity.",
		APIServerID:  opts.APIServerID,
	}); err != nil {
		return nil, err
	}
	st, fresh, err := s.build(cfg, nil)
	if err != nil {
		return nil, fmt.Errorf("--encryption-provider-config %s: %w", opts.ConfigFile, err)
	}
	for _, e := range fresh {
		s.kms[e.cfg.Name] = e
	}
	s.st.Store(st)
	s.reloads.Loaded(st.hash)
	return s, nil
}

func (s *Store) current() *state { return s.st.Load() }

// Run polls the KMS plugins for key id changes and, with automatic
// reload, follows the configuration file, until ctx is done; then it
// closes the plugins' connections.
func (s *Store) Run(ctx context.Context) {
	s.mu.Lock()
	s.runCtx = ctx
	for _, e := range s.kms {
		s.startLocked(e)
	}
	s.mu.Unlock()
	if s.opts.AutomaticReload {
		w := &configfile.Watcher{
			Path:     s.opts.ConfigFile,
			Interval: pollInterval,
			Apply:    s.apply,
			Metrics:  s.reloads,
			Logger:   s.log,
			What:     "encryption config",
		}
		w.Run(ctx, s.current().hash)
	} else {
		<-ctx.Done()
	}
	s.mu.Lock()
	s.runCtx = nil
	s.mu.Unlock()
	// Run owns the plugins' pollers and connections: they end with it.
	s.closeProviders()
}

// startLocked starts e's key id poller under Run's context.
func (s *Store) startLocked(e *kmsEntry) {
	if s.runCtx == nil || e.cancel != nil {
		return
	}
	ctx, cancel := context.WithCancel(s.runCtx)
	e.cancel, e.done = cancel, make(chan struct{})
	go func() {
		defer close(e.done)
		e.p.Run(ctx)
	}()
}

// apply is a reload: new content becomes the configuration in use only if
// it is valid and every KMS plugin it names answers healthy; otherwise the
// last good one stays.
func (s *Store) apply(ctx context.Context, data []byte, hash string) error {
	cfg, err := config.Parse(data, config.Options{Reload: true})
	if err != nil {
		return err
	}
	s.mu.Lock()
	running := make(map[string]*kmsEntry, len(s.kms))
	for k, v := range s.kms {
		running[k] = v
	}
	s.mu.Unlock()
	st, fresh, err := s.build(cfg, running)
	if err != nil {
		return err
	}
	if err := s.awaitHealthy(ctx, st.kms); err != nil {
		for _, f := range fresh {
			f.close()
		}
		return fmt.Errorf("%w: KMS plugin not healthy: %w", configfile.ErrRetry, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	next := map[string]*kmsEntry{}
	for _, e := range st.kms {
		next[e.cfg.Name] = e
		s.startLocked(e)
	}
	now := time.Now()
	live := s.retired[:0]
	for _, r := range s.retired {
		if now.Before(r.deadline) {
			live = append(live, r)
		}
	}
	s.retired = live
	for name, e := range s.kms {
		if next[name] != e {
			grace := max(retireAfter, 2*e.timeout)
			s.retired = append(s.retired, retired{time.AfterFunc(grace, e.close), e, now.Add(grace)})
		}
	}
	s.kms = next
	s.st.Store(st)
	return nil
}

// healthPoll is how often a reload asks a KMS plugin that is not healthy yet.
var healthPoll = 100 * time.Millisecond

// awaitHealthy waits until every plugin answers healthy, giving them, as
// kube-apiserver does, max(10 s, twice the sum of their timeouts): a
// plugin that is still starting does not fail the reload.
func (s *Store) awaitHealthy(ctx context.Context, entries []*kmsEntry) error {
	var total time.Duration
	for _, e := range entries {
		total += e.timeout
	}
	ctx, cancel := context.WithTimeout(ctx, max(retireAfter, 2*total))
	defer cancel()
	for _, e := range entries {
		for {
			cctx, ccancel := context.WithTimeout(ctx, e.timeout)
			err := e.p.Check(cctx)
			ccancel()
			if err == nil {
				break
			}
			select {
			case <-ctx.Done():
				return err
			case <-time.After(healthPoll):
			}
		}
	}
	return nil
}

// closeProviders closes every KMS plugin connection, retired ones too.
func (s *Store) closeProviders() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.retired {
		if r.timer.Stop() {
			r.entry.close()
		}
	}
	s.retired = nil
	for _, e := range s.kms {
		e.close()
	}
	s.kms = map[string]*kmsEntry{}
}

// retired is a KMS plugin dropped by a reload, closed by the timer.
type retired struct {
	timer    *time.Timer
	entry    *kmsEntry
	deadline time.Time
}
