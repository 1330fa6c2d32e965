package kmsv2

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The defaults of kube-apiserver.
const (
	// DefaultTimeout bounds each plugin call.
	DefaultTimeout = 3 * time.Second
	// DefaultHealthyInterval is Run's poll interval while the plugin is
	// healthy: a key id change is seen within it.
	DefaultHealthyInterval = time.Minute
	// DefaultUnhealthyInterval is Run's poll interval while it is not.
	DefaultUnhealthyInterval = 10 * time.Second
	// writeLease is how long after the last good Status the seed may still
	// be used for writes.
	writeLease = 3 * time.Minute
)

// Config is one KMS v2 provider of an EncryptionConfiguration.
type Config struct {
	// Name is the provider's name; it is part of the prefix of its values.
	Name string
	// Endpoint is the plugin's socket: "unix:///path/to.sock", or an
	// abstract socket as "unix:@name" or "unix:///@name".
	Endpoint string
	// Timeout bounds each plugin call; zero means DefaultTimeout.
	Timeout time.Duration
	// Registerer receives the metrics; nil keeps them unregistered.
	Registerer prometheus.Registerer
	// APIServerID is hashed into the apiserver_id_hash label.
	APIServerID string
	// Logger defaults to discarding.
	Logger *slog.Logger
	// HealthyInterval and UnhealthyInterval are Run's poll intervals; zero
	// means kube-apiserver's. kube-apiserver cannot change them; tests
	// shorten them to see a key rotation sooner.
	HealthyInterval   time.Duration
	UnhealthyInterval time.Duration
}

func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.HealthyInterval <= 0 {
		c.HealthyInterval = DefaultHealthyInterval
	}
	if c.UnhealthyInterval <= 0 {
		c.UnhealthyInterval = DefaultUnhealthyInterval
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

func (c Config) validate() error {
	if c.Name == "" {
		return fmt.Errorf("%w: name is empty", ErrInvalidConfig)
	}
	// The name ends at the next colon of the prefix.
	if strings.Contains(c.Name, ":") {
		return fmt.Errorf("%w: name %q must not contain ':'", ErrInvalidConfig, c.Name)
	}
	return nil
}

// socketAddress turns an endpoint into the address to dial on "unix":
// a path, or "@name" for a Linux abstract socket.
func socketAddress(endpoint string) (string, error) {
	if endpoint == "" {
		return "", fmt.Errorf("%w: remote KMS provider can't use empty string as endpoint", ErrInvalidConfig)
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", fmt.Errorf("%w: invalid endpoint %q for remote KMS provider: %w", ErrInvalidConfig, endpoint, err)
	}
	if u.Scheme != "unix" {
		return "", fmt.Errorf("%w: unsupported scheme %q for remote KMS provider", ErrInvalidConfig, u.Scheme)
	}
	switch {
	case strings.HasPrefix(u.Opaque, "@") && len(u.Opaque) > 1:
		return u.Opaque, nil
	case u.Opaque != "" || u.Host != "":
		return "", fmt.Errorf("%w: endpoint %q: want unix:///absolute/path or unix:@abstract-name", ErrInvalidConfig, endpoint)
	case strings.HasPrefix(u.Path, "/@") && len(u.Path) > 2:
		return u.Path[1:], nil
	case strings.HasPrefix(u.Path, "/") && len(u.Path) > 1:
		return u.Path, nil
	}
	return "", fmt.Errorf("%w: endpoint %q has no socket path", ErrInvalidConfig, endpoint)
}
