package podsecurity

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/sets"
	admissionapi "k8s.io/pod-security-admission/admission/api"
	"k8s.io/pod-security-admission/admission/api/load"
	"k8s.io/pod-security-admission/admission/api/validation"
	"k8s.io/pod-security-admission/api"
)

// config is a loaded PodSecurityConfiguration, compiled for lookups.
type config struct {
	defaults       api.Policy
	usernames      sets.Set[string]
	namespaces     sets.Set[string]
	runtimeClasses sets.Set[string]
}

// loadConfig decodes a PodSecurityConfiguration (apiVersion
// pod-security.admission.config.k8s.io/v1, v1beta1 or v1alpha1; YAML or
// JSON) strictly: unknown and duplicate fields are errors, as they are in
// kube-apiserver. Empty data is the defaulted empty v1 configuration:
// privileged:latest for every mode, no exemptions.
func loadConfig(data []byte) (*config, error) {
	cfg, err := load.LoadFromData(data)
	if err != nil {
		return nil, err
	}
	// kube-apiserver parses the defaults before validating the whole
	// configuration, and so reports a bad level or version this way first.
	defaults, err := admissionapi.ToPolicy(cfg.Defaults)
	if err != nil {
		return nil, fmt.Errorf("%s configuration error: %w", Name, err)
	}
	if errs := validation.ValidatePodSecurityConfiguration(cfg); len(errs) > 0 {
		return nil, fmt.Errorf("%s invalid: %w", Name, errs.ToAggregate())
	}
	return &config{
		defaults:       defaults,
		usernames:      sets.New(cfg.Exemptions.Usernames...),
		namespaces:     sets.New(cfg.Exemptions.Namespaces...),
		runtimeClasses: sets.New(cfg.Exemptions.RuntimeClasses...),
	}, nil
}

// The exemption checks: an empty name is never exempt (a request without
// a namespace, an anonymous user without a name, a pod without a runtime
// class).

func (c *config) exemptNamespace(ns string) bool { return ns != "" && c.namespaces.Has(ns) }

func (c *config) exemptUser(name string) bool { return name != "" && c.usernames.Has(name) }

func (c *config) exemptRuntimeClass(rc *string) bool {
	return rc != nil && *rc != "" && c.runtimeClasses.Has(*rc)
}
