package server

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/manifest"
	"github.com/portcullis/portcullis/internal/admission/policy"
	"github.com/portcullis/portcullis/internal/defaults"
	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/validation"
)

// gateManifests is the feature gate of manifest-based admission control.
const gateManifests = "ManifestBasedAdmissionControlConfig"

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
	if len(data) == 0 {
		return c, nil
	}
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return c, fmt.Errorf("%w: %w", admission.ErrConfig, err)
	}
	if c.Kind != kind {
		return c, fmt.Errorf("%w: kind: Invalid value: %q: must be %s", admission.ErrConfig, c.Kind, kind)
	}
	if c.KubeConfigFile != "" && kind != "WebhookAdmissionConfiguration" {
		return c, fmt.Errorf("%w: kubeConfigFile: Forbidden: only for webhooks", admission.ErrConfig)
	}
	if err := manifest.ValidateConfigField(c.StaticManifestsDir, gate); err != nil {
		return c, fmt.Errorf("%w: %w", admission.ErrConfig, err)
	}
	return c, nil
}

// validateManifest applies the defaulting and validation of API-created
// objects to a static manifest.
func validateManifest(obj runtime.Object) field.ErrorList {
	defaults.Apply(obj)
	errs := validation.Create(obj)
	if p, ok := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy); ok && len(errs) == 0 {
		errs = append(errs, policy.ValidateExpressions(p, nil)...)
	}
	return errs
}

// engine is a policy or webhook plugin fed with objects.
type engine interface {
	Upsert(obj runtime.Object)
}

// static holds the engine of one plugin's static manifests. Each reload
// builds a new engine from the whole new set and swaps it in at once, so no
// request sees half a configuration.
type static[E engine] struct {
	cur atomic.Pointer[E]
}

// watch loads dir and keeps the engine current; newEngine makes an empty one.
func (s *static[E]) watch(dir string, kind manifest.Kind, newEngine func() (E, error), d pluginDeps) error {
	var buildErr error
	w, err := manifest.NewWatcher(dir, kind, validateManifest, func(_, next *manifest.Set) {
		e, err := newEngine()
		if err != nil {
			buildErr = err
			d.log.Error("static admission manifests: building plugin", "plugin", kind, "err", err)
			return
		}
		for _, obj := range next.Objects {
			e.Upsert(obj)
		}
		s.cur.Store(&e)
	}, d.metrics, d.log, manifest.WithServerID(d.serverID))
	if err != nil {
		return fmt.Errorf("%s staticManifestsDir: %w", kind, err)
	}
	if buildErr != nil {
		return buildErr
	}
	d.feeds.run = append(d.feeds.run, w.Run)
	return nil
}

func (s *static[E]) get() (E, bool) {
	p := s.cur.Load()
	if p == nil {
		var zero E
		return zero, false
	}
	return *p, true
}

// staticFirstValidator runs the static engine before the API-based one.
type staticFirstValidator struct {
	static func() (admission.Validator, bool)
	api    admission.Validator
}

func (v staticFirstValidator) Validate(ctx context.Context, a *admission.Attributes) error {
	if s, ok := v.static(); ok {
		if err := s.Validate(ctx, a); err != nil {
			return err
		}
	}
	return v.api.Validate(ctx, a)
}

// staticFirstMutator runs the static engine before the API-based one.
type staticFirstMutator struct {
	static func() (admission.Mutator, bool)
	api    admission.Mutator
}

func (m staticFirstMutator) Admit(ctx context.Context, a *admission.Attributes) error {
	if s, ok := m.static(); ok {
		if err := s.Admit(ctx, a); err != nil {
			return err
		}
	}
	return m.api.Admit(ctx, a)
}

// staticSuffixCheck keeps the .static.k8s.io name suffix for manifests:
// with the gate on, API-created admission configurations may not use it;
// with it off they may, with a warning.
func staticSuffixCheck(gate bool) admission.Validator {
	return admission.ValidatorFunc(func(ctx context.Context, a *admission.Attributes) error {
		if a.Operation != admission.Create || a.Kind.Group != admissionregistrationv1.GroupName || !strings.HasSuffix(a.Name, manifest.Suffix) {
			return nil
		}
		msg := fmt.Sprintf("names ending in %q are reserved for manifest-based admission configurations", manifest.Suffix)
		if !gate {
			if st := request.StateFrom(ctx); st != nil {
				st.AddWarning(fmt.Sprintf("metadata.name: %s; this object would be refused with the %s feature gate enabled", msg, gateManifests))
			}
			return nil
		}
		return apierrors.NewInvalid(a.Kind.GroupKind(), a.Name, field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), a.Name, msg)})
	})
}
