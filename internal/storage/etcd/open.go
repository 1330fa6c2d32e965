package etcd

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"strings"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Open dials the cluster, checks that it answers (bounded by ctx and
// cfg.DialTimeout) and returns a ready store that owns the client: Close
// closes it. With cfg.CompactInterval > 0 the compaction loop runs until
// Close.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.DialTimeout == 0 {
		cfg.DialTimeout = DefaultDialTimeout
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	tlsConfig, err := clientTLS(cfg)
	if err != nil {
		return nil, err
	}
	client, err := clientv3.New(clientv3.Config{
		Endpoints:   cfg.Endpoints,
		TLS:         tlsConfig,
		DialTimeout: cfg.DialTimeout,
		Logger:      zap.New(slogCore{h: logger.With("component", "etcd-client").Handler()}),
		// Writes carry whole objects; kube-apiserver allows 2 MiB requests
		// and etcd refuses above its own --max-request-bytes anyway.
		MaxCallSendMsgSize: 2 << 20,
	})
	if err != nil {
		return nil, fmt.Errorf("etcd store: connecting to %s: %w", strings.Join(cfg.Endpoints, ","), err)
	}
	s := newStore(client.KV, client.Watcher, Options{
		CompactInterval: cfg.CompactInterval,
		HealthKey:       cfg.HealthKey,
		Logger:          logger,
	})
	s.owned = client
	pctx, cancel := context.WithTimeout(ctx, cfg.DialTimeout)
	defer cancel()
	if err := s.Check(pctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("etcd store: %s: %w", strings.Join(cfg.Endpoints, ","), err)
	}
	return s, nil
}

// clientTLS builds the client's TLS configuration from the files, as
// kube-apiserver does from --etcd-cafile, --etcd-certfile and
// --etcd-keyfile; nil (plain TCP) when no file is given and no endpoint is
// https.
func clientTLS(cfg Config) (*tls.Config, error) {
	if cfg.CAFile == "" && cfg.CertFile == "" && cfg.KeyFile == "" {
		for _, ep := range cfg.Endpoints {
			if strings.HasPrefix(ep, "https://") {
				return &tls.Config{MinVersion: tls.VersionTLS12}, nil
			}
		}
		return nil, nil
	}
	info := transport.TLSInfo{CertFile: cfg.CertFile, KeyFile: cfg.KeyFile, TrustedCAFile: cfg.CAFile}
	tlsConfig, err := info.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("etcd store: TLS configuration: %w", err)
	}
	return tlsConfig, nil
}
