package imagepolicy

import (
	"bytes"
	"fmt"
	"time"

	"sigs.k8s.io/yaml"
)

// kube-apiserver's bounds and defaults. TTLs are configured in seconds and
// the backoff in milliseconds; 0 asks for the default and -1 disables.
const (
	defaultRetryBackoff = 500 * time.Millisecond
	minRetryBackoff     = time.Nanosecond
	maxRetryBackoff     = 5 * time.Minute
	defaultAllowTTL     = 5 * time.Minute
	defaultDenyTTL      = 30 * time.Second
	minTTL              = time.Second
	maxTTL              = 30 * time.Minute

	useDefault = time.Duration(0)
	disable    = time.Duration(-1)
)

// Config is the plugin's configuration file: an imagePolicy stanza. It
// has no apiVersion of its own; apiVersion and kind are tolerated (and
// ignored, as kube-apiserver ignores them), and so is
// podNodeSelectorPluginConfig, because kube-apiserver gives a legacy
// admission configuration file, one holding both plugins' stanzas at the
// top level, whole to this plugin and to PodNodeSelector.
type Config struct {
	APIVersion                  string `json:"apiVersion,omitempty"`
	Kind                        string `json:"kind,omitempty"`
	PodNodeSelectorPluginConfig any    `json:"podNodeSelectorPluginConfig,omitempty"`

	ImagePolicy WebhookConfig `json:"imagePolicy"`
}

// WebhookConfig is the imagePolicy stanza. Durations are as written
// (seconds for the TTLs, milliseconds for RetryBackoff) until Normalize
// turns them into real durations.
type WebhookConfig struct {
	// KubeConfigFile names the webhook (cluster) and the credentials the
	// server presents to it (user).
	KubeConfigFile string `json:"kubeConfigFile"`
	// AllowTTL is how long an allowed review is cached.
	AllowTTL time.Duration `json:"allowTTL"`
	// DenyTTL is how long a denied review is cached.
	DenyTTL time.Duration `json:"denyTTL"`
	// RetryBackoff is the first wait before a call is tried again.
	RetryBackoff time.Duration `json:"retryBackoff"`
	// DefaultAllow admits pods when the webhook cannot be asked.
	DefaultAllow bool `json:"defaultAllow"`
}

// Decode reads the configuration in YAML or JSON, refusing unknown and
// duplicate fields; field names match in any case, as kube-apiserver's
// decoder matches them. Empty data is ErrNoConfig.
func Decode(data []byte) (*Config, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, ErrNoConfig
	}
	cfg := &Config{}
	if err := yaml.UnmarshalStrict(data, cfg); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	return cfg, nil
}

// Normalize resolves the defaults and the units of c's durations and
// checks their bounds, with kube-apiserver's message; the backoff is
// checked first, then the allow and the deny TTL.
func (c *WebhookConfig) Normalize() error {
	var err error
	if c.RetryBackoff, err = normalize(c.RetryBackoff, time.Millisecond, minRetryBackoff, maxRetryBackoff, defaultRetryBackoff); err != nil {
		return err
	}
	if c.AllowTTL, err = normalize(c.AllowTTL, time.Second, minTTL, maxTTL, defaultAllowTTL); err != nil {
		return err
	}
	c.DenyTTL, err = normalize(c.DenyTTL, time.Second, minTTL, maxTTL, defaultDenyTTL)
	return err
}

func normalize(v, unit, lo, hi, def time.Duration) (time.Duration, error) {
	switch v {
	case disable:
		return 0, nil
	case useDefault:
		return def, nil
	}
	// The multiplication may overflow for absurd values, as it does in
	// kube-apiserver.
	v *= unit
	if v < lo || v > hi {
		return v, fmt.Errorf("%w: valid value is between %v and %v, got %v", ErrConfig, lo, hi, v)
	}
	return v, nil
}
