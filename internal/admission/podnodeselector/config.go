package podnodeselector

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// ErrConfig wraps every problem with the plugin's configuration.
var ErrConfig = errors.New("PodNodeSelector configuration")

// ClusterDefaultKey is the configuration key of the selector for
// namespaces without their own annotation; every other key is a
// namespace's whitelist.
const ClusterDefaultKey = "clusterDefaultNodeSelector"

// Config is the plugin's configuration file.
type Config struct {
	PodNodeSelectorPluginConfig map[string]string `json:"podNodeSelectorPluginConfig,omitempty"`
	// ImagePolicy is ImagePolicyWebhook's, ignored here: a legacy
	// --admission-control-config-file (not an AdmissionConfiguration) is
	// given whole to both plugins, as kube-apiserver does.
	ImagePolicy json.RawMessage `json:"imagePolicy,omitempty"`
}

// selectors is a Config with every selector parsed.
type selectors struct {
	clusterDefault labels.Set
	whitelists     map[string]labels.Set
}

// parseConfig decodes data (empty: no configuration) and parses its
// selectors, reporting every malformed one.
func parseConfig(data []byte) (selectors, error) {
	s := selectors{clusterDefault: labels.Set{}, whitelists: map[string]labels.Set{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return s, nil
	}
	var c Config
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return s, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	keys := make([]string, 0, len(c.PodNodeSelectorPluginConfig))
	for k := range c.PodNodeSelectorPluginConfig {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var errs []error
	for _, k := range keys {
		set, err := labels.ConvertSelectorToLabelsMap(c.PodNodeSelectorPluginConfig[k])
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: podNodeSelectorPluginConfig[%s]: %w", ErrConfig, k, err))
			continue
		}
		if k == ClusterDefaultKey {
			s.clusterDefault = set
		} else {
			s.whitelists[k] = set
		}
	}
	return s, errors.Join(errs...)
}
