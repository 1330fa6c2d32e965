package admission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/configfile"
)

// Plugin is an admission plugin portcullis can run.
type Plugin struct {
	Name string
	// DefaultEnabled plugins run unless --disable-admission-plugins names them.
	DefaultEnabled bool
	// New builds the plugin from its configuration (nil when none was
	// given). The result implements Mutator, Validator or both.
	New func(config []byte) (any, error)
}

// ErrConfig marks errors in the admission configuration.
var ErrConfig = errors.New("admission configuration")

// Options selects and configures plugins, as kube-apiserver's
// --enable-admission-plugins, --disable-admission-plugins and
// --admission-control-config-file do.
type Options struct {
	Enable     []string
	Disable    []string
	ConfigFile string
}

// Build returns the chain of the enabled plugins in the order of
// ordered (kube-apiserver runs plugins in a fixed order, whatever the
// order of the flags), and the names it enabled.
func Build(ordered []Plugin, opts Options) (*Chain, []string, error) {
	known := map[string]bool{}
	for _, p := range ordered {
		known[p.Name] = true
	}
	var errs []error
	for _, n := range append(append([]string(nil), opts.Enable...), opts.Disable...) {
		if !known[n] {
			errs = append(errs, fmt.Errorf("%w: unknown admission plugin %q", ErrConfig, n))
		}
	}
	for _, n := range opts.Enable {
		if slices.Contains(opts.Disable, n) {
			errs = append(errs, fmt.Errorf("%w: %q is in both --enable-admission-plugins and --disable-admission-plugins", ErrConfig, n))
		}
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	configs, err := readConfig(opts.ConfigFile)
	if err != nil {
		return nil, nil, err
	}
	chain := &Chain{}
	var names []string
	for _, p := range ordered {
		on := (p.DefaultEnabled || slices.Contains(opts.Enable, p.Name)) && !slices.Contains(opts.Disable, p.Name)
		if !on {
			continue
		}
		plugin, err := p.New(configs[p.Name])
		if err != nil {
			return nil, nil, fmt.Errorf("admission plugin %q: %w", p.Name, err)
		}
		m, isM := plugin.(Mutator)
		v, isV := plugin.(Validator)
		if !isM && !isV {
			return nil, nil, fmt.Errorf("admission plugin %q neither mutates nor validates", p.Name)
		}
		if isM {
			chain.Mutators = append(chain.Mutators, m)
			chain.MutatorNames = append(chain.MutatorNames, p.Name)
		}
		if isV {
			chain.Validators = append(chain.Validators, v)
			chain.ValidatorNames = append(chain.ValidatorNames, p.Name)
		}
		names = append(names, p.Name)
	}
	return chain, names, nil
}

// configFile is what --admission-control-config-file must declare. Files
// written when the group was still apiserver.k8s.io carry over.
var configFile = configfile.Type{
	Kind:     "AdmissionConfiguration",
	Versions: []string{"apiserver.config.k8s.io/v1", "apiserver.config.k8s.io/v1alpha1"},
	Legacy:   []metav1.TypeMeta{{APIVersion: "apiserver.k8s.io/v1alpha1", Kind: "AdmissionConfiguration"}},
}

// legacy reports whether data, which is not an AdmissionConfiguration,
// is the file of the two plugins that read one before that kind existed
// (a top-level imagePolicy or podNodeSelectorPluginConfig): kube-apiserver
// then gives the whole file to ImagePolicyWebhook and PodNodeSelector.
func legacy(data []byte, err error) bool {
	var te *configfile.TypeError
	if !errors.As(err, &te) {
		return false
	}
	var top map[string]json.RawMessage
	if yaml.Unmarshal(data, &top) != nil {
		return false
	}
	_, image := top["imagePolicy"]
	_, nodes := top["podNodeSelectorPluginConfig"]
	return image || nodes
}

// readConfig reads an AdmissionConfiguration (apiserver.config.k8s.io/v1,
// strictly decoded) and returns each plugin's configuration: the inline
// configuration, or the file named by path (relative paths are relative
// to the configuration file).
func readConfig(path string) (map[string][]byte, error) {
	out := map[string][]byte{}
	if path == "" {
		return out, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: reading %s: %w", ErrConfig, path, err)
	}
	var cfg apiserverv1.AdmissionConfiguration
	if err := configFile.Decode(data, &cfg); err != nil {
		if legacy(data, err) {
			return map[string][]byte{"ImagePolicyWebhook": data, "PodNodeSelector": data}, nil
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
	}
	dir := filepath.Dir(path)
	for i, p := range cfg.Plugins {
		fld := fmt.Sprintf("plugins[%d]", i)
		if p.Name == "" {
			return nil, fmt.Errorf("%w: %s: %s.name: Required value", ErrConfig, path, fld)
		}
		if _, dup := out[p.Name]; dup {
			return nil, fmt.Errorf("%w: %s: %s.name: Duplicate value: %q", ErrConfig, path, fld, p.Name)
		}
		switch {
		case p.Configuration != nil && len(bytes.TrimSpace(p.Configuration.Raw)) > 0:
			out[p.Name] = p.Configuration.Raw
		case p.Path != "":
			f := p.Path
			if !filepath.IsAbs(f) {
				f = filepath.Join(dir, f)
			}
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %s.path: %w", ErrConfig, path, fld, err)
			}
			out[p.Name] = b
		default:
			out[p.Name] = nil
		}
	}
	return out, nil
}
