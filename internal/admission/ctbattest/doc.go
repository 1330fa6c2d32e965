// Package ctbattest is the ClusterTrustBundleAttest admission plugin: a
// ClusterTrustBundle linked to a signer (spec.signerName set) may be
// written only by a user allowed to "attest" for that signer.
//
// # Mapping to kube-apiserver
//
// kube-apiserver's plugin of the same name is a validating plugin that acts
// on CREATE and UPDATE of certificates.k8s.io clustertrustbundles, in
// every served version (v1, v1beta1, v1alpha1), when the ClusterTrustBundle
// feature gate is on (GA and on by default in 1.37; New takes its value).
// It checks the new object's signer name (validation already refuses a
// change of signer name): bundles without one pass; updates that change
// nothing but ownerReferences, finalizers, selfLink or managedFields pass
// (so that garbage collection and storage migration need no attest
// permission); otherwise certauthz.Allowed with verb "attest" decides, and
// a refusal is Forbidden: "user not permitted to attest for signerName %q".
//
// kube-apiserver reports an object of the wrong type with the type of the
// old object ("expected type ClusterTrustBundle, got: %T"); so does this
// plugin, since the message is what clients see.
//
// The plugin needs an authorizer; New refuses to build without one.
package ctbattest
