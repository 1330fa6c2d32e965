package authnconfig

import (
	"fmt"
	"os"

	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"

	"github.com/portcullis/portcullis/internal/authn/jwt"
	"github.com/portcullis/portcullis/internal/configfile"
)

// LoadOptions are what validation needs besides the file.
type LoadOptions struct {
	// DisallowedIssuers are issuer URLs the JWT authenticators may not use:
	// the --service-account-issuer values.
	DisallowedIssuers []string
}

// Config is a decoded, validated and compiled AuthenticationConfiguration
// file. It is immutable.
type Config struct {
	path string
	hash string
	api  *apiserverv1.AuthenticationConfiguration
	jwt  []*jwt.Compiled
}

// Load reads, decodes strictly, validates and compiles the file at path.
func Load(path string, opts LoadOptions) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("failed to load authentication configuration from file %q: %w", path, err)
	}
	c, err := Parse(data, opts)
	if err != nil {
		return nil, fmt.Errorf("failed to load authentication configuration from file %q: %w", path, err)
	}
	c.path = path
	return c, nil
}

// Parse decodes strictly, validates and compiles a configuration.
func Parse(data []byte, opts LoadOptions) (*Config, error) {
	api, err := Decode(data)
	if err != nil {
		return nil, err
	}
	compiled, errs := Validate(api, opts.DisallowedIssuers)
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, errs.ToAggregate())
	}
	return &Config{hash: configfile.Hash(data), api: api, jwt: compiled}, nil
}

// FromAPI validates and compiles a configuration built in memory (from
// flags): it has no file, so no hash and no reloads.
func FromAPI(api *apiserverv1.AuthenticationConfiguration, opts LoadOptions) (*Config, error) {
	compiled, errs := Validate(api, opts.DisallowedIssuers)
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, errs.ToAggregate())
	}
	return &Config{api: api, jwt: compiled}, nil
}

// Path is the file the configuration came from ("" for Parse).
func (c *Config) Path() string {
	if c == nil {
		return ""
	}
	return c.path
}

// Hash is the content hash of the file (configfile.Hash), used to notice
// changes and reported in the last_config_info metric.
func (c *Config) Hash() string {
	if c == nil {
		return ""
	}
	return c.hash
}

// Anonymous is the file's anonymous field, nil when absent (or when c is
// nil, i.e. there is no file). Pass it to anonymous.Resolve.
func (c *Config) Anonymous() *apiserverv1.AnonymousAuthConfig {
	if c == nil || c.api.Anonymous == nil {
		return nil
	}
	return c.api.Anonymous.DeepCopy()
}

// Issuers returns the JWT issuer URLs in configuration order.
func (c *Config) Issuers() []string {
	if c == nil {
		return nil
	}
	out := make([]string, len(c.jwt))
	for i, j := range c.jwt {
		out[i] = j.Issuer()
	}
	return out
}
