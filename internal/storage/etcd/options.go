package etcd

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"time"
)

// DefaultHealthKey is the key Check reads: kube-apiserver probes
// path.Join("/", prefix, "health") with its default --etcd-prefix /registry.
const DefaultHealthKey = "/registry/health"

// DefaultDialTimeout bounds establishing the connection in Open when
// Config.DialTimeout is 0 (kube-apiserver's dial timeout).
const DefaultDialTimeout = 20 * time.Second

// Config is what Open needs to reach an etcd cluster: the
// kube-apiserver flags --etcd-servers, --etcd-cafile, --etcd-certfile,
// --etcd-keyfile and --etcd-compaction-interval.
type Config struct {
	// Endpoints are client URLs such as http://127.0.0.1:2379 or https://etcd-0:2379.
	Endpoints []string
	// CAFile verifies the servers' certificates; without it (and with an
	// https endpoint) the system roots do.
	CAFile string
	// CertFile and KeyFile are the client certificate presented to etcd;
	// both or neither.
	CertFile, KeyFile string
	// DialTimeout bounds the first connection; 0 means DefaultDialTimeout.
	DialTimeout time.Duration
	// CompactInterval runs kube-apiserver's compaction protocol at that
	// interval (see Options.CompactInterval); 0 disables it.
	CompactInterval time.Duration
	// HealthKey is the key Check reads; empty means DefaultHealthKey.
	HealthKey string
	// Logger receives the store's and the etcd client's messages; nil
	// means slog.Default().
	Logger *slog.Logger
}

// Validate returns every problem of c, each with its field.
func (c Config) Validate() error {
	var errs []error
	if len(c.Endpoints) == 0 {
		errs = append(errs, errors.New("endpoints: at least one is required"))
	}
	for i, ep := range c.Endpoints {
		u, err := url.Parse(ep)
		switch {
		case err != nil:
			errs = append(errs, fmt.Errorf("endpoints[%d]: %w", i, err))
		case u.Scheme != "http" && u.Scheme != "https":
			errs = append(errs, fmt.Errorf("endpoints[%d]: %q: the scheme must be http or https", i, ep))
		case u.Host == "":
			errs = append(errs, fmt.Errorf("endpoints[%d]: %q: no host", i, ep))
		}
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		errs = append(errs, errors.New("certFile, keyFile: both or neither must be set"))
	}
	if c.DialTimeout < 0 {
		errs = append(errs, errors.New("dialTimeout: must not be negative"))
	}
	if c.CompactInterval < 0 {
		errs = append(errs, errors.New("compactInterval: must not be negative"))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, errors.Join(errs...))
	}
	return nil
}

// Options tune a Store made by New around a client made elsewhere.
type Options struct {
	// CompactInterval > 0 runs kube-apiserver's compaction protocol: every
	// interval, one of the replicas (portcullis or kube-apiserver) on the
	// cluster compacts to the revision seen one interval earlier.
	CompactInterval time.Duration
	// HealthKey is the key Check reads; empty means DefaultHealthKey.
	HealthKey string
	// Logger receives the store's messages; nil means slog.Default().
	Logger *slog.Logger
	// WatchBuffer is each watch channel's capacity; 0 means 100.
	WatchBuffer int
}

func (o Options) withDefaults() Options {
	if o.HealthKey == "" {
		o.HealthKey = DefaultHealthKey
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.WatchBuffer <= 0 {
		o.WatchBuffer = 100
	}
	return o
}
