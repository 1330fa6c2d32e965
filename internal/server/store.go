package server

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/portcullis/portcullis/internal/storage"
	"github.com/portcullis/portcullis/internal/storage/bbolt"
	"github.com/portcullis/portcullis/internal/storage/etcd"
)

// backend is the store the server keeps its objects in, and how /livez
// and /readyz check it.
type backend struct {
	storage.Store
	// check is the "etcd" check, ready the "etcd-readiness" one (nil on
	// the embedded store, which has nothing to become ready).
	check, ready func(context.Context) error
	// embedded is true for the bbolt store in --data-dir, which earlier
	// versions may have written in their own key layout.
	embedded bool
}

// openStore opens etcd when --etcd-servers names it, else the embedded
// store in --data-dir.
func openStore(ctx context.Context, cfg Config, log *slog.Logger) (*backend, error) {
	if len(cfg.Etcd.Servers) == 0 {
		if err := os.MkdirAll(filepath.Dir(cfg.dbPath()), 0o700); err != nil {
			return nil, fmt.Errorf("creating store directory: %w", err)
		}
		store, err := bbolt.Open(cfg.dbPath(), bbolt.Options{CompactInterval: cfg.CompactionInterval, Logger: log})
		if err != nil {
			return nil, fmt.Errorf("--data-dir: %w", err)
		}
		revision := func(ctx context.Context) error {
			_, _, err := store.Revision(ctx)
			return err
		}
		return &backend{Store: store, check: revision, embedded: true}, nil
	}
	store, err := etcd.Open(ctx, etcd.Config{
		Endpoints: cfg.Etcd.Servers,
		CAFile:    cfg.Etcd.CAFile, CertFile: cfg.Etcd.CertFile, KeyFile: cfg.Etcd.KeyFile,
		CompactInterval: cfg.CompactionInterval,
		// kube-apiserver's health checks read this key.
		HealthKey: path.Join("/", cfg.Etcd.Prefix, "health"),
		Logger:    log,
	})
	if err != nil {
		return nil, fmt.Errorf("--etcd-servers: %w", err)
	}
	return &backend{
		Store: store,
		check: timed(store.Check, cfg.Etcd.HealthcheckTimeout),
		ready: timed(store.Check, cfg.Etcd.ReadycheckTimeout),
	}, nil
}

// timed bounds check by timeout, as kube-apiserver's --etcd-healthcheck-timeout
// and --etcd-readycheck-timeout bound its probes.
func timed(check func(context.Context) error, timeout time.Duration) func(context.Context) error {
	return func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return check(ctx)
	}
}
