package registry

import (
	"strconv"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func gvr(group, version, resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: group, Version: version, Resource: resource}
}

// Builtin returns the resources portcullis serves, freshly allocated.
func Builtin() []*Resource {
	core := func(res string) schema.GroupVersionResource { return gvr("", "v1", res) }
	apps := func(res string) schema.GroupVersionResource { return gvr("apps", "v1", res) }
	rbac := func(res string) schema.GroupVersionResource { return gvr("rbac.authorization.k8s.io", "v1", res) }
	adm := func(res string) schema.GroupVersionResource { return gvr("admissionregistration.k8s.io", "v1", res) }
	storage := func(res string) schema.GroupVersionResource { return gvr("storage.k8s.io", "v1", res) }
	all := []string{"all"}
	resources := []*Resource{
		{GVR: core("namespaces"), ReturnDeleted: true, Kind: "Namespace", ShortNames: []string{"ns"}, Status: true,
			New: func() runtime.Object { return &corev1.Namespace{} }, NewList: func() runtime.Object { return &corev1.NamespaceList{} },
			Fields: func(o runtime.Object) fields.Set {
				return fields.Set{"status.phase": string(o.(*corev1.Namespace).Status.Phase)}
			}},
		{GVR: core("pods"), ReturnDeleted: true, Kind: "Pod", Namespaced: true, ShortNames: []string{"po"}, Categories: all, Status: true, Generation: true, Unsupported: []string{"attach", "ephemeralcontainers", "exec", "log", "portforward", "proxy", "resize"},
			Connectors: []Connector{
				{Name: "binding", Kind: corev1.SchemeGroupVersion.WithKind("Binding"), Verbs: []string{"create"},
					New: func() runtime.Object { return &corev1.Binding{} }},
				{Name: "eviction", Kind: policyv1.SchemeGroupVersion.WithKind("Eviction"), Verbs: []string{"create"},
					New: func() runtime.Object { return &policyv1.Eviction{} }}},
			New: func() runtime.Object { return &corev1.Pod{} }, NewList: func() runtime.Object { return &corev1.PodList{} },
			Fields: podFields},
		{GVR: core("bindings"), Kind: "Binding", Namespaced: true, Virtual: true, Verbs: []string{"create"},
			New: func() runtime.Object { return &corev1.Binding{} }, NewList: func() runtime.Object { return &corev1.Binding{} }},
		{GVR: core("nodes"), Kind: "Node", ShortNames: []string{"no"}, Status: true, Unsupported: []string{"proxy"},
			New: func() runtime.Object { return &corev1.Node{} }, NewList: func() runtime.Object { return &corev1.NodeList{} },
			Fields: func(o runtime.Object) fields.Set {
				return fields.Set{"spec.unschedulable": strconv.FormatBool(o.(*corev1.Node).Spec.Unschedulable)}
			}},
		{GVR: core("services"), ReturnDeleted: true, Kind: "Service", Namespaced: true, ShortNames: []string{"svc"}, Categories: all, Status: true, Unsupported: []string{"proxy"},
			New: func() runtime.Object { return &corev1.Service{} }, NewList: func() runtime.Object { return &corev1.ServiceList{} }},
		{GVR: core("endpoints"), Kind: "Endpoints", Namespaced: true, ShortNames: []string{"ep"}, Singular: "endpoints",
			New: func() runtime.Object { return &corev1.Endpoints{} }, NewList: func() runtime.Object { return &corev1.EndpointsList{} }},
		{GVR: core("configmaps"), Kind: "ConfigMap", Namespaced: true, ShortNames: []string{"cm"},
			New: func() runtime.Object { return &corev1.ConfigMap{} }, NewList: func() runtime.Object { return &corev1.ConfigMapList{} }},
		{GVR: core("secrets"), Kind: "Secret", Namespaced: true,
			New: func() runtime.Object { return &corev1.Secret{} }, NewList: func() runtime.Object { return &corev1.SecretList{} },
			Fields: func(o runtime.Object) fields.Set {
				return fields.Set{"type": string(o.(*corev1.Secret).Type)}
			}},
		{GVR: core("serviceaccounts"), ReturnDeleted: true, Kind: "ServiceAccount", Namespaced: true, ShortNames: []string{"sa"},
			Connectors: []Connector{{Name: "token", Kind: authenticationv1.SchemeGroupVersion.WithKind("TokenRequest"), Verbs: []string{"create"},
				New: func() runtime.Object { return &authenticationv1.TokenRequest{} }}},
			New: func() runtime.Object { return &corev1.ServiceAccount{} }, NewList: func() runtime.Object { return &corev1.ServiceAccountList{} }},
		{GVR: core("persistentvolumes"), ReturnDeleted: true, Kind: "PersistentVolume", ShortNames: []string{"pv"}, Status: true,
			New: func() runtime.Object { return &corev1.PersistentVolume{} }, NewList: func() runtime.Object { return &corev1.PersistentVolumeList{} },
			Fields: func(o runtime.Object) fields.Set {
				pv := o.(*corev1.PersistentVolume)
				return fields.Set{"status.phase": string(pv.Status.Phase)}
			}},
		{GVR: core("persistentvolumeclaims"), ReturnDeleted: true, Kind: "PersistentVolumeClaim", Namespaced: true, ShortNames: []string{"pvc"}, Status: true,
			New: func() runtime.Object { return &corev1.PersistentVolumeClaim{} }, NewList: func() runtime.Object { return &corev1.PersistentVolumeClaimList{} }},
		{GVR: core("events"), Kind: "Event", Namespaced: true, ShortNames: []string{"ev"},
			New: func() runtime.Object { return &corev1.Event{} }, NewList: func() runtime.Object { return &corev1.EventList{} },
			Fields: coreEventFields},
		{GVR: core("limitranges"), Kind: "LimitRange", Namespaced: true, ShortNames: []string{"limits"},
			New: func() runtime.Object { return &corev1.LimitRange{} }, NewList: func() runtime.Object { return &corev1.LimitRangeList{} }},
		{GVR: core("resourcequotas"), ReturnDeleted: true, Kind: "ResourceQuota", Namespaced: true, ShortNames: []string{"quota"}, Status: true,
			New: func() runtime.Object { return &corev1.ResourceQuota{} }, NewList: func() runtime.Object { return &corev1.ResourceQuotaList{} }},

		{GVR: apps("deployments"), Kind: "Deployment", Namespaced: true, ShortNames: []string{"deploy"}, Categories: all, Status: true, Scale: true, Generation: true,
			New: func() runtime.Object { return &appsv1.Deployment{} }, NewList: func() runtime.Object { return &appsv1.DeploymentList{} }},
		{GVR: apps("replicasets"), Kind: "ReplicaSet", Namespaced: true, ShortNames: []string{"rs"}, Categories: all, Status: true, Scale: true, Generation: true,
			New: func() runtime.Object { return &appsv1.ReplicaSet{} }, NewList: func() runtime.Object { return &appsv1.ReplicaSetList{} },
			Fields: func(o runtime.Object) fields.Set {
				return fields.Set{"status.replicas": strconv.Itoa(int(o.(*appsv1.ReplicaSet).Status.Replicas))}
			}},
		{GVR: apps("statefulsets"), Kind: "StatefulSet", Namespaced: true, ShortNames: []string{"sts"}, Categories: all, Status: true, Scale: true, Generation: true,
			New: func() runtime.Object { return &appsv1.StatefulSet{} }, NewList: func() runtime.Object { return &appsv1.StatefulSetList{} }},
		{GVR: apps("daemonsets"), Kind: "DaemonSet", Namespaced: true, ShortNames: []string{"ds"}, Categories: all, Status: true, Generation: true,
			New: func() runtime.Object { return &appsv1.DaemonSet{} }, NewList: func() runtime.Object { return &appsv1.DaemonSetList{} }},

		{GVR: rbac("roles"), Kind: "Role", Namespaced: true,
			New: func() runtime.Object { return &rbacv1.Role{} }, NewList: func() runtime.Object { return &rbacv1.RoleList{} }},
		{GVR: rbac("rolebindings"), Kind: "RoleBinding", Namespaced: true,
			New: func() runtime.Object { return &rbacv1.RoleBinding{} }, NewList: func() runtime.Object { return &rbacv1.RoleBindingList{} }},
		{GVR: rbac("clusterroles"), Kind: "ClusterRole",
			New: func() runtime.Object { return &rbacv1.ClusterRole{} }, NewList: func() runtime.Object { return &rbacv1.ClusterRoleList{} }},
		{GVR: rbac("clusterrolebindings"), Kind: "ClusterRoleBinding",
			New: func() runtime.Object { return &rbacv1.ClusterRoleBinding{} }, NewList: func() runtime.Object { return &rbacv1.ClusterRoleBindingList{} }},

		{GVR: adm("validatingadmissionpolicies"), ConditionalUpdate: true, Kind: "ValidatingAdmissionPolicy", Categories: []string{"api-extensions"}, Status: true, Generation: true,
			New: func() runtime.Object { return &admissionregistrationv1.ValidatingAdmissionPolicy{} }, NewList: func() runtime.Object { return &admissionregistrationv1.ValidatingAdmissionPolicyList{} }},
		{GVR: adm("validatingadmissionpolicybindings"), ConditionalUpdate: true, Kind: "ValidatingAdmissionPolicyBinding", Categories: []string{"api-extensions"}, Generation: true,
			New: func() runtime.Object { return &admissionregistrationv1.ValidatingAdmissionPolicyBinding{} }, NewList: func() runtime.Object { return &admissionregistrationv1.ValidatingAdmissionPolicyBindingList{} }},
		{GVR: adm("mutatingadmissionpolicies"), ConditionalUpdate: true, Kind: "MutatingAdmissionPolicy", Categories: []string{"api-extensions"}, Generation: true,
			New: func() runtime.Object { return &admissionregistrationv1.MutatingAdmissionPolicy{} }, NewList: func() runtime.Object { return &admissionregistrationv1.MutatingAdmissionPolicyList{} }},
		{GVR: adm("mutatingadmissionpolicybindings"), ConditionalUpdate: true, Kind: "MutatingAdmissionPolicyBinding", Categories: []string{"api-extensions"}, Generation: true,
			New: func() runtime.Object { return &admissionregistrationv1.MutatingAdmissionPolicyBinding{} }, NewList: func() runtime.Object { return &admissionregistrationv1.MutatingAdmissionPolicyBindingList{} }},
		{GVR: adm("validatingwebhookconfigurations"), ConditionalUpdate: true, Kind: "ValidatingWebhookConfiguration", Categories: []string{"api-extensions"}, Generation: true,
			New: func() runtime.Object { return &admissionregistrationv1.ValidatingWebhookConfiguration{} }, NewList: func() runtime.Object { return &admissionregistrationv1.ValidatingWebhookConfigurationList{} }},
		{GVR: adm("mutatingwebhookconfigurations"), ConditionalUpdate: true, Kind: "MutatingWebhookConfiguration", Categories: []string{"api-extensions"}, Generation: true,
			New: func() runtime.Object { return &admissionregistrationv1.MutatingWebhookConfiguration{} }, NewList: func() runtime.Object { return &admissionregistrationv1.MutatingWebhookConfigurationList{} }},

		{GVR: gvr("apiextensions.k8s.io", "v1", "customresourcedefinitions"), Kind: "CustomResourceDefinition", ShortNames: []string{"crd", "crds"}, Categories: []string{"api-extensions"}, Status: true, Generation: true,
			New: func() runtime.Object { return &apiextensionsv1.CustomResourceDefinition{} }, NewList: func() runtime.Object { return &apiextensionsv1.CustomResourceDefinitionList{} }},

		{GVR: gvr("coordination.k8s.io", "v1", "leases"), ConditionalUpdate: true, Kind: "Lease", Namespaced: true,
			New: func() runtime.Object { return &coordinationv1.Lease{} }, NewList: func() runtime.Object { return &coordinationv1.LeaseList{} }},

		{GVR: storage("csidrivers"), ConditionalUpdate: true, ReturnDeleted: true, Kind: "CSIDriver",
			New: func() runtime.Object { return &storagev1.CSIDriver{} }, NewList: func() runtime.Object { return &storagev1.CSIDriverList{} }},
		{GVR: storage("csinodes"), ConditionalUpdate: true, ReturnDeleted: true, Kind: "CSINode",
			New: func() runtime.Object { return &storagev1.CSINode{} }, NewList: func() runtime.Object { return &storagev1.CSINodeList{} }},
		{GVR: storage("volumeattachments"), ConditionalUpdate: true, ReturnDeleted: true, Kind: "VolumeAttachment", Status: true,
			New: func() runtime.Object { return &storagev1.VolumeAttachment{} }, NewList: func() runtime.Object { return &storagev1.VolumeAttachmentList{} }},
		{GVR: storage("storageclasses"), ReturnDeleted: true, Kind: "StorageClass", ShortNames: []string{"sc"},
			New: func() runtime.Object { return &storagev1.StorageClass{} }, NewList: func() runtime.Object { return &storagev1.StorageClassList{} }},

		{GVR: gvr("certificates.k8s.io", "v1", "certificatesigningrequests"), Kind: "CertificateSigningRequest", ShortNames: []string{"csr"}, Status: true, Unsupported: []string{"approval"},
			New: func() runtime.Object { return &certificatesv1.CertificateSigningRequest{} }, NewList: func() runtime.Object { return &certificatesv1.CertificateSigningRequestList{} },
			Fields: func(o runtime.Object) fields.Set {
				return fields.Set{"spec.signerName": o.(*certificatesv1.CertificateSigningRequest).Spec.SignerName}
			}},

		{GVR: gvr("authentication.k8s.io", "v1", "tokenreviews"), Kind: "TokenReview", Virtual: true, Verbs: []string{"create"},
			New: func() runtime.Object { return &authenticationv1.TokenReview{} }, NewList: func() runtime.Object { return &authenticationv1.TokenReview{} }},
		{GVR: gvr("authentication.k8s.io", "v1", "selfsubjectreviews"), Kind: "SelfSubjectReview", Virtual: true, Verbs: []string{"create"},
			New: func() runtime.Object { return &authenticationv1.SelfSubjectReview{} }, NewList: func() runtime.Object { return &authenticationv1.SelfSubjectReview{} }},

		{GVR: gvr("authorization.k8s.io", "v1", "subjectaccessreviews"), Kind: "SubjectAccessReview", Virtual: true, Verbs: []string{"create"},
			New: func() runtime.Object { return &authorizationv1.SubjectAccessReview{} }, NewList: func() runtime.Object { return &authorizationv1.SubjectAccessReview{} }},
		{GVR: gvr("authorization.k8s.io", "v1", "selfsubjectaccessreviews"), Kind: "SelfSubjectAccessReview", Virtual: true, Verbs: []string{"create"},
			New: func() runtime.Object { return &authorizationv1.SelfSubjectAccessReview{} }, NewList: func() runtime.Object { return &authorizationv1.SelfSubjectAccessReview{} }},
		{GVR: gvr("authorization.k8s.io", "v1", "localsubjectaccessreviews"), Kind: "LocalSubjectAccessReview", Namespaced: true, Virtual: true, Verbs: []string{"create"},
			New: func() runtime.Object { return &authorizationv1.LocalSubjectAccessReview{} }, NewList: func() runtime.Object { return &authorizationv1.LocalSubjectAccessReview{} }},
		{GVR: gvr("authorization.k8s.io", "v1", "selfsubjectrulesreviews"), Kind: "SelfSubjectRulesReview", Virtual: true, Verbs: []string{"create"},
			New: func() runtime.Object { return &authorizationv1.SelfSubjectRulesReview{} }, NewList: func() runtime.Object { return &authorizationv1.SelfSubjectRulesReview{} }},

		{GVR: gvr("events.k8s.io", "v1", "events"), Kind: "Event", Namespaced: true, ShortNames: []string{"ev"},
			New: func() runtime.Object { return &eventsv1.Event{} }, NewList: func() runtime.Object { return &eventsv1.EventList{} }},
	}
	resources = append(resources, flowcontrolResources()...)
	resources = append(resources, batchResources()...)
	resources = append(resources, apiregistrationResources()...)
	resources = append(resources, clusterResources()...)
	resources = append(resources, networkingResources()...)
	byGVR := map[schema.GroupVersionResource]*Resource{}
	for _, r := range resources {
		byGVR[r.GVR] = r
	}
	byGVR[gvr("events.k8s.io", "v1", "events")].StoredAs = eventsAsCore(byGVR[core("events")])
	return resources
}

func podFields(o runtime.Object) fields.Set {
	p := o.(*corev1.Pod)
	return fields.Set{
		"spec.nodeName":            p.Spec.NodeName,
		"spec.restartPolicy":       string(p.Spec.RestartPolicy),
		"spec.schedulerName":       p.Spec.SchedulerName,
		"spec.serviceAccountName":  p.Spec.ServiceAccountName,
		"spec.hostNetwork":         strconv.FormatBool(p.Spec.HostNetwork),
		"status.phase":             string(p.Status.Phase),
		"status.podIP":             p.Status.PodIP,
		"status.nominatedNodeName": p.Status.NominatedNodeName,
	}
}

func coreEventFields(o runtime.Object) fields.Set {
	e := o.(*corev1.Event)
	return fields.Set{
		"involvedObject.kind":            e.InvolvedObject.Kind,
		"involvedObject.namespace":       e.InvolvedObject.Namespace,
		"involvedObject.name":            e.InvolvedObject.Name,
		"involvedObject.uid":             string(e.InvolvedObject.UID),
		"involvedObject.apiVersion":      e.InvolvedObject.APIVersion,
		"involvedObject.resourceVersion": e.InvolvedObject.ResourceVersion,
		"involvedObject.fieldPath":       e.InvolvedObject.FieldPath,
		"reason":                         e.Reason,
		"reportingComponent":             e.ReportingController,
		"source":                         e.Source.Component,
		"type":                           e.Type,
	}
}
