package validation

import (
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var validKeyUsages = []string{
	"any", "cert sign", "client auth", "code signing", "content commitment", "crl sign",
	"data encipherment", "decipher only", "digital signature", "email protection",
	"encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement",
	"key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime",
	"server auth", "signing", "timestamping",
}

const legacyUnknownSignerName = "kubernetes.io/legacy-unknown"

// validateCSR checks a certificate signing request. Its name is free-form
// beyond being a path segment.
func validateCSR(csr *certificatesv1.CertificateSigningRequest) field.ErrorList {
	errs := validateMeta(&csr.ObjectMeta, false, nameIsPathSegment)
	sp := field.NewPath("spec")
	if err := checkCSRRequest(csr.Spec.Request); err != nil {
		errs = append(errs, field.Invalid(sp.Child("request"), csr.Spec.Request, err.Error()))
	}
	up := sp.Child("usages")
	if len(csr.Spec.Usages) == 0 {
		errs = append(errs, field.Required(up, ""))
	}
	for i, u := range csr.Spec.Usages {
		if !contains(validKeyUsages, string(u)) {
			errs = append(errs, field.NotSupported(up.Index(i), u, validKeyUsages))
		}
	}
	seen := map[certificatesv1.KeyUsage]bool{}
	for i, u := range csr.Spec.Usages {
		if seen[u] {
			errs = append(errs, field.Duplicate(up.Index(i), u))
		}
		seen[u] = true
	}
	if csr.Spec.SignerName == legacyUnknownSignerName {
		errs = append(errs, field.Invalid(sp.Child("signerName"), csr.Spec.SignerName, "the legacy signerName is not allowed via this API version"))
	} else {
		errs = append(errs, validateSignerName(csr.Spec.SignerName, sp.Child("signerName"))...)
	}
	if s := csr.Spec.ExpirationSeconds; s != nil && *s < 600 {
		errs = append(errs, field.Invalid(sp.Child("expirationSeconds"), *s, "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	return errs
}

// checkCSRRequest parses the PEM request and verifies its self-signature.
func checkCSRRequest(pemBytes []byte) error {
	block, _ := pem.Decode(pemBytes)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	req, err := x509.ParseCertificateRequest(block.Bytes)
	if err != nil {
		return err
	}
	return req.CheckSignature()
}

// validateSignerName requires "<domain>/<path>": a domain of at least two
// DNS labels and a path of DNS subdomains joined by dots.
func validateSignerName(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	segments := strings.Split(name, "/")
	if len(segments) != 2 {
		return field.ErrorList{field.Invalid(p, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	var errs field.ErrorList
	if len(segments[0]) > utilvalidation.DNS1123SubdomainMaxLength {
		errs = append(errs, field.TooLong(p, "", utilvalidation.DNS1123SubdomainMaxLength))
	}
	domainLabels := strings.Split(segments[0], ".")
	for _, lbl := range domainLabels {
		if msgs := isDNS1123Label(lbl); len(msgs) > 0 {
			for _, msg := range msgs {
				errs = append(errs, field.Invalid(p, segments[0], fmt.Sprintf("validating label %q: %s", lbl, msg)))
			}
			break
		}
	}
	if len(domainLabels) < 2 {
		errs = append(errs, field.Invalid(p, segments[0], "should be a domain with at least two segments separated by dots"))
	}
	for _, lbl := range strings.Split(segments[1], ".") {
		if msgs := isDNS1123Subdomain(lbl); len(msgs) > 0 {
			for _, msg := range msgs {
				errs = append(errs, field.Invalid(p, segments[1], fmt.Sprintf("validating label %q: %s", lbl, msg)))
			}
			break
		}
	}
	maxLen := utilvalidation.DNS1123SubdomainMaxLength + utilvalidation.DNS1123SubdomainMaxLength + utilvalidation.DNS1123LabelMaxLength + 2
	if len(name) > maxLen {
		errs = append(errs, field.TooLong(p, "", maxLen))
	}
	return errs
}
