// Package certauthz is the signer-name authorization check that the
// certificate admission plugins share (CertificateApproval,
// CertificateSigning, ClusterTrustBundleAttest).
//
// A user may <verb> for a signer when the authorizer allows <verb> on the
// synthetic resource certificates.k8s.io "signers" (API version "*",
// cluster scope) named either the signer name itself or its domain
// wildcard "<domain>/*", the domain being what comes before the first "/"
// ("example.com/foo/bar" -> "example.com/*"). This is
// kube-apiserver's pkg/certauthorization. Authorizer errors are not
// reported: an error means "not allowed by this attempt", as there.
package certauthz
