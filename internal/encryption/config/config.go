package config

import (
	"crypto/sha256"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime/schema"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
)

// Options tune loading.
type Options struct {
	// Reload is true when the file is loaded for
	// --encryption-provider-config-automatic-reload: KMS v1 provider names
	// must then be unique too, as in kube-apiserver.
	Reload bool
}

// Config is a decoded, defaulted and validated EncryptionConfiguration.
// Treat it as immutable: it may be shared between goroutines.
type Config struct {
	// Resources are the file's entries in order, defaulted (KMS timeout
	// 3s). They hold the key material.
	Resources []apiserverv1.ResourceConfiguration
	// Hash is "sha256:" and the hex digest of the file's bytes, as
	// kube-apiserver computes it to notice changes and to label its
	// last-config-info metric without keeping the keys.
	Hash string
	// Path is the file the configuration came from; "" from Parse.
	Path string

	// rules maps every group resource written in the file ("secrets",
	// "*.apps", "*.", "*.*") to the entries naming it, in order.
	rules map[schema.GroupResource][]int
}

// Load reads the file at path and parses it with Parse. Its errors name
// the file.
func Load(path string, opts Options) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("error reading encryption provider configuration file %q: %w", path, err)
	}
	c, err := Parse(data, opts)
	if err != nil {
		return nil, fmt.Errorf("error loading encryption provider configuration file %q: %w", path, err)
	}
	c.Path = path
	return c, nil
}

// Parse decodes data strictly, applies kube-apiserver's defaults and
// validates the result. Its errors wrap ErrEmpty, ErrDecode or ErrInvalid
// and never contain key material.
func Parse(data []byte, opts Options) (*Config, error) {
	api, err := decode(data)
	if err != nil {
		return nil, err
	}
	setDefaults(api)
	if errs := validate(api, opts.Reload); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, errs.ToAggregate())
	}
	c := &Config{
		Resources: api.Resources,
		Hash:      fmt.Sprintf("sha256:%x", sha256.Sum256(data)),
		rules:     map[schema.GroupResource][]int{},
	}
	for i, rc := range c.Resources {
		for _, res := range rc.Resources {
			gr := schema.ParseGroupResource(res)
			// A resource listed twice in one entry is refused by
			// validation, so each entry appears once per rule.
			c.rules[gr] = append(c.rules[gr], i)
		}
	}
	return c, nil
}

// String describes the configuration without its resources, so that
// printing a Config cannot print a key.
func (c *Config) String() string {
	if c == nil {
		return "EncryptionConfiguration(none)"
	}
	return fmt.Sprintf("EncryptionConfiguration(%d entries, %s)", len(c.Resources), c.Hash)
}

// GoString keeps %#v from printing the keys.
func (c *Config) GoString() string { return c.String() }
