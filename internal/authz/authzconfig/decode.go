package authzconfig

import (
	"errors"
	"fmt"
	"os"

	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"

	"github.com/portcullis/portcullis/internal/configfile"
)

const (
	// Group of the configuration file's apiVersion.
	Group = "apiserver.config.k8s.io"
	// Kind of the configuration file.
	Kind = "AuthorizationConfiguration"
)

// fileType is what the file must declare. The three versions have the
// same AuthorizationConfiguration fields and defaults, so all decode into
// the v1 types.
var fileType = configfile.Type{Kind: Kind, Versions: []string{Group + "/v1", Group + "/v1beta1", Group + "/v1alpha1"}}

// Load reads and parses the file named by --authorization-config.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	return Parse(data)
}

// Parse decodes an AuthorizationConfiguration (YAML or JSON) strictly,
// applies the defaults, then validates it and compiles its match
// conditions. A decoding problem is ErrDecode; an invalid configuration is
// an *InvalidError listing every problem.
func Parse(data []byte) (*Config, error) {
	var ac apiserverv1.AuthorizationConfiguration
	// An empty file is an empty configuration, which validation refuses
	// for having no authorizers, as kube-apiserver does.
	if err := fileType.Decode(data, &ac); err != nil && !errors.Is(err, configfile.ErrEmpty) {
		return nil, fmt.Errorf("%w: %w", ErrDecode, err)
	}
	for i := range ac.Authorizers {
		if w := ac.Authorizers[i].Webhook; w != nil {
			apiserverv1.SetDefaults_WebhookConfiguration(w)
		}
	}
	matchers, errs := validate(&ac)
	if len(errs) > 0 {
		return nil, &InvalidError{Errs: errs}
	}
	return &Config{authorizers: ac.Authorizers, matchers: matchers, hash: configfile.Hash(data)}, nil
}
