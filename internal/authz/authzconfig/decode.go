package authzconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/configfile"
)

const (
	// Group of the configuration file's apiVersion.
	Group = "apiserver.config.k8s.io"
	// Kind of the configuration file.
	Kind = "AuthorizationConfiguration"
)

// versions are the accepted apiVersions. The three have the same
// AuthorizationConfiguration fields and defaults, so all decode into the
// v1 types.
var versions = []string{Group + "/v1", Group + "/v1beta1", Group + "/v1alpha1"}

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
	if len(bytes.TrimSpace(data)) > 0 {
		if err := decodeStrict(data, &ac); err != nil {
			return nil, err
		}
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

// decodeStrict decodes YAML or JSON into ac, refusing unknown, duplicate
// and case-mismatched fields and anything but an AuthorizationConfiguration.
func decodeStrict(data []byte, ac *apiserverv1.AuthorizationConfiguration) error {
	js := data
	if !json.Valid(data) {
		var err error
		// YAMLToJSONStrict refuses duplicate keys; JSON is checked for
		// them by UnmarshalStrict below.
		if js, err = yaml.YAMLToJSONStrict(data); err != nil {
			return fmt.Errorf("%w: %w", ErrDecode, err)
		}
	}
	// The type is checked first so that a different kind is reported as
	// such rather than as a heap of unknown fields.
	var tm metav1.TypeMeta
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, &tm); err != nil {
		return fmt.Errorf("%w: %w", ErrDecode, err)
	}
	if tm.Kind != Kind || !slices.Contains(versions, tm.APIVersion) {
		return fmt.Errorf("%w: apiVersion %q, kind %q: want kind %s of %s/v1 (or v1beta1)",
			ErrDecode, tm.APIVersion, tm.Kind, Kind, Group)
	}
	strictErrs, err := kjson.UnmarshalStrict(js, ac)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrDecode, err)
	}
	if len(strictErrs) > 0 {
		return fmt.Errorf("%w: %w", ErrDecode, errors.Join(strictErrs...))
	}
	return nil
}
