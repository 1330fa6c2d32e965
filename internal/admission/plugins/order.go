package plugins

import "slices"

// order is kube-apiserver 1.37's order of every admission plugin
// (AllOrderedPlugins): the chain runs the enabled ones in this order
// whatever the order of the flags. The webhooks, ResourceQuota and
// AlwaysDeny come last, so that quota is charged only for what every
// other plugin admitted.
var order = []string{
	"AlwaysAdmit",
	"NamespaceAutoProvision",
	"NamespaceLifecycle",
	"NamespaceExists",
	"LimitPodHardAntiAffinityTopology",
	"LimitRanger",
	"ServiceAccount",
	"NodeRestriction",
	"TaintNodesByCondition",
	"AlwaysPullImages",
	"ImagePolicyWebhook",
	"PodSecurity",
	"PodNodeSelector",
	"Priority",
	"DefaultTolerationSeconds",
	"PodTolerationRestriction",
	"EventRateLimit",
	"ExtendedResourceToleration",
	"DefaultStorageClass",
	"StorageObjectInUseProtection",
	"PodGroupProtection",
	"OwnerReferencesPermissionEnforcement",
	"PersistentVolumeClaimResize",
	"RuntimeClass",
	"CertificateApproval",
	"CertificateSigning",
	"ClusterTrustBundleAttest",
	"CertificateSubjectRestriction",
	"DefaultIngressClass",
	"DenyServiceExternalIPs",
	"PodTopologyLabels",
	"NodeDeclaredFeatureValidator",
	"PodResizeValidator",
	"MutatingAdmissionPolicy",
	"MutatingAdmissionWebhook",
	"ValidatingAdmissionPolicy",
	"ValidatingAdmissionWebhook",
	"ResourceQuota",
	"AlwaysDeny",
}

// defaultOn are the plugins kube-apiserver 1.37 enables without
// --enable-admission-plugins.
var defaultOn = map[string]bool{
	"NamespaceLifecycle":            true,
	"LimitRanger":                   true,
	"ServiceAccount":                true,
	"DefaultStorageClass":           true,
	"PersistentVolumeClaimResize":   true,
	"DefaultTolerationSeconds":      true,
	"MutatingAdmissionWebhook":      true,
	"ValidatingAdmissionWebhook":    true,
	"ResourceQuota":                 true,
	"StorageObjectInUseProtection":  true,
	"PodGroupProtection":            true,
	"Priority":                      true,
	"TaintNodesByCondition":         true,
	"RuntimeClass":                  true,
	"CertificateApproval":           true,
	"CertificateSigning":            true,
	"ClusterTrustBundleAttest":      true,
	"CertificateSubjectRestriction": true,
	"DefaultIngressClass":           true,
	"PodSecurity":                   true,
	"PodTopologyLabels":             true,
	"MutatingAdmissionPolicy":       true,
	"ValidatingAdmissionPolicy":     true,
	"NodeDeclaredFeatureValidator":  true,
	"PodResizeValidator":            true,
}

// Names are every plugin's name, sorted, as kube-apiserver's help lists them.
func Names() []string {
	return slices.Sorted(slices.Values(order))
}

// DefaultEnabled are the plugins on without flags, in the chain's order.
func DefaultEnabled() []string {
	var out []string
	for _, n := range order {
		if defaultOn[n] {
			out = append(out, n)
		}
	}
	return out
}
