package serviceaccount

import (
	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// SetDefaults fills in what the authentication.k8s.io/v1 defaulting does:
// an hour when no expiration is asked for.
func SetDefaults(spec *authenticationv1.TokenRequestSpec) {
	if spec.ExpirationSeconds == nil {
		spec.ExpirationSeconds = ptr.To[int64](DefaultExpirationSeconds)
	}
}

// ValidateTokenRequest is kube-apiserver's static validation of a
// (defaulted) TokenRequest, with its field paths and messages. The bound
// object reference is checked against the store by TokenRequests.Create.
func ValidateTokenRequest(tr *authenticationv1.TokenRequest) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")

	exp := ptr.Deref(tr.Spec.ExpirationSeconds, 0)
	if exp < MinExpirationSeconds {
		errs = append(errs, field.Invalid(spec.Child("expirationSeconds"), exp, "may not specify a duration less than 10 minutes"))
	}
	if exp > MaxExpirationSeconds {
		errs = append(errs, field.Invalid(spec.Child("expirationSeconds"), exp, "may not specify a duration larger than 2^32 seconds"))
	}

	if !isWebhookRef(tr.Spec.BoundObjectRef) {
		if len(tr.Spec.Attestations) != 0 {
			// kube-apiserver reports this alone.
			return field.ErrorList{field.Invalid(spec.Child("attestations"), tr.Spec.Attestations,
				"attestations may only be specified with a webhook bound object reference")}
		}
		return errs
	}
	if len(tr.Spec.Audiences) != 1 {
		errs = append(errs, field.Invalid(spec.Child("audiences"), tr.Spec.Audiences, "must be length 1 when bound to a webhook config"))
	}
	return append(errs, validateAttestations(tr.Spec.Attestations, spec.Child("attestations"))...)
}

func isWebhookRef(r *authenticationv1.BoundObjectReference) bool {
	return r != nil && r.APIVersion == "admissionregistration.k8s.io/v1" &&
		(r.Kind == "ValidatingWebhookConfiguration" || r.Kind == "MutatingWebhookConfiguration")
}

func validateAttestations(att map[string]authenticationv1.AttestationValue, path *field.Path) field.ErrorList {
	if len(att) != 1 {
		return field.ErrorList{field.Invalid(path, att, "webhook bound requests require exactly one admissionReviewAPIGroups attestation")}
	}
	var errs field.ErrorList
	for key, values := range att {
		p := path.Key(key)
		if key != authenticationv1.AttestationAdmissionReviewAPIGroups {
			errs = append(errs, field.NotSupported(p, key, []string{authenticationv1.AttestationAdmissionReviewAPIGroups}))
			continue
		}
		if len(values) != 1 {
			errs = append(errs, field.Invalid(p, values, "must specify a single value"))
			continue
		}
		switch g := values[0]; g {
		case "":
			errs = append(errs, field.Invalid(p.Index(0), g, "may not be an empty string"))
		case "*":
		default:
			for _, reason := range validation.IsDNS1123Subdomain(g) {
				errs = append(errs, field.Invalid(p.Index(0), g, "must specify a valid API Group: "+reason))
			}
		}
	}
	return errs
}
