// Package certsubjectrestriction is the CertificateSubjectRestriction
// admission plugin: no CertificateSigningRequest for the
// kubernetes.io/kube-apiserver-client signer may ask for the system:masters
// group, whose members bypass authorization.
//
// # Mapping to kube-apiserver
//
// kube-apiserver's plugin of the same name is a validating plugin that acts
// on CREATE of certificates.k8s.io certificatesigningrequests (no
// subresource). For the kube-apiserver-client signer it decodes
// spec.request (a PEM "CERTIFICATE REQUEST" block) and refuses, as
// Forbidden, a request whose subject organizations include system:masters
// ("use of kubernetes.io/kube-apiserver-client signer with system:masters
// group is not allowed") or that cannot be parsed ("failed to parse CSR:
// ..."). Other signers, and updates, pass untouched.
package certsubjectrestriction
