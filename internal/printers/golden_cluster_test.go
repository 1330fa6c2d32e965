package printers

import (
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func clusterMeta(name string, age time.Duration) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, CreationTimestamp: ago(age)}
}

func clusterCases() []goldenCase {
	subjects := []rbacv1.Subject{
		{Kind: rbacv1.UserKind, Name: "alice"}, {Kind: rbacv1.GroupKind, Name: "devs"},
		{Kind: rbacv1.ServiceAccountKind, Namespace: "ci", Name: "builder"}, {Kind: rbacv1.UserKind, Name: "bob"},
		{Kind: rbacv1.ServiceAccountKind, Namespace: "ci", Name: "deployer"},
	}
	return []goldenCase{
		{name: "roles", obj: &rbacv1.RoleList{Items: []rbacv1.Role{{ObjectMeta: objectMeta("reader", 26*time.Hour)}}}},
		{name: "clusterroles", obj: &rbacv1.ClusterRoleList{Items: []rbacv1.ClusterRole{{ObjectMeta: clusterMeta("admin", 26*time.Hour)}}}},
		{name: "rolebindings", obj: &rbacv1.RoleBindingList{Items: []rbacv1.RoleBinding{
			{ObjectMeta: objectMeta("readers", time.Hour), RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "reader"}, Subjects: subjects},
			{ObjectMeta: objectMeta("nobody", time.Hour), RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "view"}},
		}}},
		{name: "clusterrolebindings", obj: &rbacv1.ClusterRoleBindingList{Items: []rbacv1.ClusterRoleBinding{
			{ObjectMeta: clusterMeta("cluster-admin", time.Hour), RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "cluster-admin"}, Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, Name: "system:masters"}}},
		}}},
		{name: "leases", obj: &coordinationv1.LeaseList{Items: []coordinationv1.Lease{
			{ObjectMeta: objectMeta("kube-scheduler", time.Hour), Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr("cp-1_1234")}},
			{ObjectMeta: objectMeta("released", time.Hour)},
		}}},
		{name: "storageclasses", obj: &storagev1.StorageClassList{Items: []storagev1.StorageClass{
			{ObjectMeta: metav1.ObjectMeta{Name: "standard", CreationTimestamp: ago(time.Hour), Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}}, Provisioner: "example.com/disk"},
			{
				ObjectMeta: clusterMeta("fast", time.Hour), Provisioner: "example.com/ssd",
				ReclaimPolicy: ptr(corev1.PersistentVolumeReclaimRetain), VolumeBindingMode: ptr(storagev1.VolumeBindingWaitForFirstConsumer), AllowVolumeExpansion: ptr(true),
			},
		}}},
		{name: "csidrivers", obj: &storagev1.CSIDriverList{Items: []storagev1.CSIDriver{
			{ObjectMeta: clusterMeta("defaults.example.com", time.Hour)},
			{ObjectMeta: clusterMeta("full.example.com", time.Hour), Spec: storagev1.CSIDriverSpec{
				AttachRequired: ptr(false), PodInfoOnMount: ptr(true), StorageCapacity: ptr(true), RequiresRepublish: ptr(true),
				TokenRequests:        []storagev1.TokenRequest{{Audience: "vault"}, {Audience: "gcp"}},
				VolumeLifecycleModes: []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent, storagev1.VolumeLifecycleEphemeral},
			}},
		}}},
		{name: "csinodes", obj: &storagev1.CSINodeList{Items: []storagev1.CSINode{
			{ObjectMeta: clusterMeta("node-1", time.Hour), Spec: storagev1.CSINodeSpec{Drivers: []storagev1.CSINodeDriver{{Name: "a"}, {Name: "b"}}}},
		}}},
		{name: "volumeattachments", obj: &storagev1.VolumeAttachmentList{Items: []storagev1.VolumeAttachment{
			{ObjectMeta: clusterMeta("csi-123", time.Hour), Spec: storagev1.VolumeAttachmentSpec{Attacher: "example.com/disk", NodeName: "node-1", Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: ptr("pv-1")}}, Status: storagev1.VolumeAttachmentStatus{Attached: true}},
			{ObjectMeta: clusterMeta("inline", time.Hour), Spec: storagev1.VolumeAttachmentSpec{Attacher: "example.com/disk", NodeName: "node-2"}},
		}}},
		// kube-apiserver serves CSIStorageCapacities with the default table.
		{name: "csistoragecapacities", obj: &storagev1.CSIStorageCapacityList{Items: []storagev1.CSIStorageCapacity{
			{ObjectMeta: objectMeta("csisc-1", time.Hour), StorageClassName: "fast", Capacity: ptr(resource.MustParse("100Gi"))},
		}}},
		{name: "volumeattributesclasses", obj: &storagev1.VolumeAttributesClassList{Items: []storagev1.VolumeAttributesClass{
			{ObjectMeta: metav1.ObjectMeta{Name: "gold", CreationTimestamp: ago(time.Hour), Annotations: map[string]string{"volumeattributesclass.kubernetes.io/is-default-class": "true"}}, DriverName: "example.com/disk"},
		}}},
		{name: "certificatesigningrequests", obj: &certificatesv1.CertificateSigningRequestList{Items: []certificatesv1.CertificateSigningRequest{
			{ObjectMeta: clusterMeta("pending", time.Minute), Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: "kubernetes.io/kube-apiserver-client", Username: "alice", ExpirationSeconds: ptr(int32(86400))}},
			{
				ObjectMeta: clusterMeta("issued", time.Hour), Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: "kubernetes.io/kubelet-serving", Username: "system:node:node-1"},
				Status: certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue}}, Certificate: []byte("PEM")},
			},
			{
				ObjectMeta: clusterMeta("denied", time.Hour), Spec: certificatesv1.CertificateSigningRequestSpec{Username: "mallory"},
				Status: certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{
					{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue}, {Type: certificatesv1.CertificateDenied, Status: corev1.ConditionTrue}, {Type: certificatesv1.CertificateFailed, Status: corev1.ConditionTrue},
				}},
			},
		}}},
		{name: "validatingwebhookconfigurations", obj: &admissionregistrationv1.ValidatingWebhookConfigurationList{Items: []admissionregistrationv1.ValidatingWebhookConfiguration{
			{ObjectMeta: clusterMeta("policy", time.Hour), Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "a.example.com"}, {Name: "b.example.com"}}},
		}}},
		{name: "mutatingwebhookconfigurations", obj: &admissionregistrationv1.MutatingWebhookConfigurationList{Items: []admissionregistrationv1.MutatingWebhookConfiguration{
			{ObjectMeta: clusterMeta("inject", time.Hour), Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "sidecar.example.com"}}},
			{ObjectMeta: clusterMeta("empty", time.Hour)},
		}}},
		{name: "validatingadmissionpolicies", obj: &admissionregistrationv1.ValidatingAdmissionPolicyList{Items: []admissionregistrationv1.ValidatingAdmissionPolicy{
			{ObjectMeta: clusterMeta("replicas", time.Hour), Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
				ParamKind:   &admissionregistrationv1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"},
				Validations: []admissionregistrationv1.Validation{{Expression: "true"}, {Expression: "false"}},
			}},
			{ObjectMeta: clusterMeta("plain", time.Hour)},
		}}},
		{name: "validatingadmissionpolicybindings", obj: &admissionregistrationv1.ValidatingAdmissionPolicyBindingList{Items: paramRefCases(func(name string, ref *admissionregistrationv1.ParamRef) admissionregistrationv1.ValidatingAdmissionPolicyBinding {
			return admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: clusterMeta(name, time.Hour), Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "replicas", ParamRef: ref}}
		})}},
		{name: "mutatingadmissionpolicies", obj: &admissionregistrationv1.MutatingAdmissionPolicyList{Items: []admissionregistrationv1.MutatingAdmissionPolicy{
			{ObjectMeta: clusterMeta("labels", time.Hour), Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
				ParamKind: &admissionregistrationv1.ParamKind{APIVersion: "example.com/v1", Kind: "Defaults"},
				Mutations: []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeApplyConfiguration}},
			}},
		}}},
		{name: "mutatingadmissionpolicybindings", obj: &admissionregistrationv1.MutatingAdmissionPolicyBindingList{Items: paramRefCases(func(name string, ref *admissionregistrationv1.ParamRef) admissionregistrationv1.MutatingAdmissionPolicyBinding {
			return admissionregistrationv1.MutatingAdmissionPolicyBinding{ObjectMeta: clusterMeta(name, time.Hour), Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: "labels", ParamRef: ref}}
		})}},
		{name: "ingresses", obj: &networkingv1.IngressList{Items: []networkingv1.Ingress{
			{
				ObjectMeta: objectMeta("web", time.Hour),
				Spec: networkingv1.IngressSpec{
					IngressClassName: ptr("nginx"),
					Rules:            []networkingv1.IngressRule{{Host: "a.example.com"}, {}, {Host: "b.example.com"}, {Host: "c.example.com"}, {Host: "d.example.com"}},
					TLS:              []networkingv1.IngressTLS{{Hosts: []string{"a.example.com"}}},
				},
				Status: networkingv1.IngressStatus{LoadBalancer: networkingv1.IngressLoadBalancerStatus{Ingress: []networkingv1.IngressLoadBalancerIngress{{IP: "203.0.113.5"}, {Hostname: "lb.example.com"}}}},
			},
			{ObjectMeta: objectMeta("catch-all", time.Hour), Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{}}}},
		}}},
		{name: "ingressclasses", obj: &networkingv1.IngressClassList{Items: []networkingv1.IngressClass{
			{ObjectMeta: clusterMeta("nginx", time.Hour), Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx", Parameters: &networkingv1.IngressClassParametersReference{APIGroup: ptr("example.com"), Kind: "Params", Name: "p"}}},
			{ObjectMeta: clusterMeta("bare", time.Hour), Spec: networkingv1.IngressClassSpec{Controller: "example.com/ingress"}},
		}}},
		{name: "networkpolicies", obj: &networkingv1.NetworkPolicyList{Items: []networkingv1.NetworkPolicy{
			{ObjectMeta: objectMeta("deny-all", time.Hour)},
			{ObjectMeta: objectMeta("web", time.Hour), Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}},
		}}},
		{name: "endpointslices", obj: &discoveryv1.EndpointSliceList{Items: []discoveryv1.EndpointSlice{
			{
				ObjectMeta: objectMeta("web-abc", time.Hour), AddressType: discoveryv1.AddressTypeIPv4,
				Ports:     []discoveryv1.EndpointPort{{Port: ptr(int32(80))}, {Name: ptr("metrics")}, {}, {Port: ptr(int32(443))}},
				Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1", "10.0.0.2"}}, {Addresses: []string{"10.0.0.3"}}},
			},
			{ObjectMeta: objectMeta("empty", time.Hour), AddressType: discoveryv1.AddressTypeIPv6},
		}}},
		{name: "priorityclasses", obj: &schedulingv1.PriorityClassList{Items: []schedulingv1.PriorityClass{
			{ObjectMeta: clusterMeta("system-cluster-critical", time.Hour), Value: 2000000000, PreemptionPolicy: ptr(corev1.PreemptLowerPriority)},
			{ObjectMeta: clusterMeta("default", time.Hour), Value: 100, GlobalDefault: true},
		}}},
		{name: "runtimeclasses", obj: &nodev1.RuntimeClassList{Items: []nodev1.RuntimeClass{{ObjectMeta: clusterMeta("gvisor", time.Hour), Handler: "runsc"}}}},
	}
}

// paramRefCases builds one binding per way of naming its parameters.
func paramRefCases[B any](binding func(name string, ref *admissionregistrationv1.ParamRef) B) []B {
	return []B{
		binding("no-params", nil),
		binding("namespaced", &admissionregistrationv1.ParamRef{Namespace: "default", Name: "limits"}),
		binding("any-namespace", &admissionregistrationv1.ParamRef{Name: "limits"}),
		binding("selector", &admissionregistrationv1.ParamRef{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}),
		binding("empty-ref", &admissionregistrationv1.ParamRef{}),
	}
}
