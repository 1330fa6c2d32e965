// Package certapproval is the CertificateApproval admission plugin: only a
// user allowed to "approve" for a CertificateSigningRequest's signer may
// approve or deny it.
//
// # Mapping to kube-apiserver
//
// kube-apiserver's plugin of the same name is a validating plugin that acts
// on UPDATE of certificates.k8s.io certificatesigningrequests/approval
// only. It checks the signer name of the stored (old) object, so that a
// request that also tries to change spec.signerName is judged on the
// signer it had. The check is certauthz.Allowed with verb "approve" (the
// signer name, then "<domain>/*"). Refusals are Forbidden on the request:
// "user not permitted to approve requests with signerName %q".
//
// The plugin needs an authorizer; New refuses to build without one, as
// kube-apiserver refuses to start.
package certapproval
