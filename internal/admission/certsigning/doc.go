// Package certsigning is the CertificateSigning admission plugin: only a
// user allowed to "sign" for a CertificateSigningRequest's signer may set
// its certificate or change its conditions through the status subresource.
//
// # Mapping to kube-apiserver
//
// kube-apiserver's plugin of the same name is a validating plugin that acts
// on UPDATE of certificates.k8s.io certificatesigningrequests/status only,
// and only when status.certificate differs from the stored one (byte for
// byte, an empty certificate differing from none) or status.conditions
// differ semantically. The check is certauthz.Allowed with verb "sign" on
// the stored object's signer name. Refusals are Forbidden: "user not
// permitted to sign requests with signerName %q".
//
// The plugin needs an authorizer; New refuses to build without one.
package certsigning
