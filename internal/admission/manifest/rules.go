package manifest

import (
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// checkName enforces the reserved suffix: static objects are told apart from
// API ones by it, in metrics and audit annotations as well as here.
func checkName(name string) error {
	if name == "" {
		return fmt.Errorf("metadata.name: %w: a static manifest object must have a name", ErrName)
	}
	if !strings.HasSuffix(name, Suffix) {
		return fmt.Errorf("metadata.name: %w: %q must end with %q", ErrName, name, Suffix)
	}
	return nil
}

// checkRestrictions enforces what static objects may not do because they
// live apart from the API: no service references (the service network may
// not be up at start-up) and no parameters (they would name API objects).
// Bindings must name a static policy; whether it exists is checked once the
// whole directory is read.
func checkRestrictions(obj runtime.Object) []error {
	var errs []error
	switch o := obj.(type) {
	case *admissionv1.ValidatingAdmissionPolicy:
		if o.Spec.ParamKind != nil {
			errs = append(errs, fmt.Errorf("spec.paramKind: %w", ErrRestricted))
		}
	case *admissionv1.MutatingAdmissionPolicy:
		if o.Spec.ParamKind != nil {
			errs = append(errs, fmt.Errorf("spec.paramKind: %w", ErrRestricted))
		}
	case *admissionv1.ValidatingAdmissionPolicyBinding:
		errs = append(errs, checkBinding(o.Spec.PolicyName, o.Spec.ParamRef != nil)...)
	case *admissionv1.MutatingAdmissionPolicyBinding:
		errs = append(errs, checkBinding(o.Spec.PolicyName, o.Spec.ParamRef != nil)...)
	case *admissionv1.ValidatingWebhookConfiguration:
		for i := range o.Webhooks {
			errs = append(errs, checkClientConfig(i, o.Webhooks[i].Name, o.Webhooks[i].ClientConfig)...)
		}
	case *admissionv1.MutatingWebhookConfiguration:
		for i := range o.Webhooks {
			errs = append(errs, checkClientConfig(i, o.Webhooks[i].Name, o.Webhooks[i].ClientConfig)...)
		}
	}
	return errs
}

func checkBinding(policyName string, hasParamRef bool) []error {
	var errs []error
	switch {
	case policyName == "":
		errs = append(errs, fmt.Errorf("spec.policyName: %w: a binding must reference a policy", ErrPolicyNotFound))
	case !strings.HasSuffix(policyName, Suffix):
		errs = append(errs, fmt.Errorf("spec.policyName: %w: %q must end with %q", ErrName, policyName, Suffix))
	}
	if hasParamRef {
		errs = append(errs, fmt.Errorf("spec.paramRef: %w", ErrRestricted))
	}
	return errs
}

func checkClientConfig(i int, name string, cc admissionv1.WebhookClientConfig) []error {
	if cc.Service != nil {
		return []error{fmt.Errorf("webhooks[%d].clientConfig.service: %w; use clientConfig.url instead (webhook %q)", i, ErrRestricted, name)}
	}
	if cc.URL == nil || *cc.URL == "" {
		return []error{fmt.Errorf("webhooks[%d].clientConfig.url: %w (webhook %q)", i, ErrURLRequired, name)}
	}
	return nil
}

// bindingPolicy returns the policy a binding names, or ok=false for objects
// that are not bindings.
func bindingPolicy(obj runtime.Object) (policyKind, policyName string, ok bool) {
	switch o := obj.(type) {
	case *admissionv1.ValidatingAdmissionPolicyBinding:
		return KindValidatingAdmissionPolicy, o.Spec.PolicyName, true
	case *admissionv1.MutatingAdmissionPolicyBinding:
		return KindMutatingAdmissionPolicy, o.Spec.PolicyName, true
	}
	return "", "", false
}
