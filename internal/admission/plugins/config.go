package plugins

import (
	"bytes"
	"fmt"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/manifest"
	"github.com/portcullis/portcullis/internal/configfile"
)

// GateManifests is the feature gate of manifest-based admission control.
const GateManifests = "ManifestBasedAdmissionControlConfig"

// pluginConfig is the configuration of the policy and webhook plugins:
// ValidatingAdmissionPolicyConfiguration, MutatingAdmissionPolicyConfiguration
// and WebhookAdmissionConfiguration (apiserver.config.k8s.io/v1).
type pluginConfig struct {
	APIVersion         string `json:"apiVersion"`
	Kind               string `json:"kind"`
	KubeConfigFile     string `json:"kubeConfigFile,omitempty"`
	StaticManifestsDir string `json:"staticManifestsDir,omitempty"`
}

// parsePluginConfig strictly decodes a plugin's configuration of kind.
func parsePluginConfig(data []byte, kind string, gate bool) (pluginConfig, error) {
	var c pluginConfig
	if len(bytes.TrimSpace(data)) == 0 {
		return c, nil
	}
	// kube-apiserver registers these kinds in apiserver.config.k8s.io/v1 only.
	t := configfile.Type{Kind: kind, Versions: []string{"apiserver.config.k8s.io/v1"}}
	if err := t.Decode(data, &c); err != nil {
		return c, fmt.Errorf("%w: %w", admission.ErrConfig, err)
	}
	if c.KubeConfigFile != "" && kind != "WebhookAdmissionConfiguration" {
		return c, fmt.Errorf("%w: kubeConfigFile: Forbidden: only for webhooks", admission.ErrConfig)
	}
	if err := manifest.ValidateConfigField(c.StaticManifestsDir, gate); err != nil {
		return c, fmt.Errorf("%w: %w", admission.ErrConfig, err)
	}
	return c, nil
}
