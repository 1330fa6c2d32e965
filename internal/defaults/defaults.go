package defaults

import (
	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/portcullis/portcullis/internal/crd/definition"
)

// Apply sets, in place, the defaults kube-apiserver sets for obj's type.
func Apply(obj runtime.Object) {
	if applyWorkloads(obj) {
		return
	}
	switch o := obj.(type) {
	case *corev1.Namespace:
		if o != nil {
			namespace(o)
		}
	case *corev1.Pod:
		if o != nil {
			pod(o)
		}
	case *corev1.Node:
		if o != nil {
			node(o)
		}
	case *corev1.Service:
		if o != nil {
			service(o)
		}
	case *corev1.Endpoints:
		if o != nil {
			endpoints(o)
		}
	case *corev1.Secret:
		if o != nil {
			secret(o)
		}
	case *corev1.PersistentVolume:
		if o != nil {
			persistentVolume(o)
		}
	case *corev1.PersistentVolumeClaim:
		if o != nil {
			persistentVolumeClaim(o)
		}
	case *corev1.LimitRange:
		if o != nil {
			limitRange(o)
		}
	case *appsv1.Deployment:
		if o != nil {
			deployment(o)
		}
	case *appsv1.ReplicaSet:
		if o != nil {
			replicaSet(o)
		}
	case *appsv1.StatefulSet:
		if o != nil {
			statefulSet(o)
		}
	case *appsv1.DaemonSet:
		if o != nil {
			daemonSet(o)
		}
	case *rbacv1.RoleBinding:
		if o != nil {
			roleBinding(o)
		}
	case *rbacv1.ClusterRoleBinding:
		if o != nil {
			clusterRoleBinding(o)
		}
	case *admissionv1.ValidatingWebhookConfiguration:
		if o != nil {
			validatingWebhookConfiguration(o)
		}
	case *admissionv1.MutatingWebhookConfiguration:
		if o != nil {
			mutatingWebhookConfiguration(o)
		}
	case *admissionv1.ValidatingAdmissionPolicy:
		if o != nil {
			validatingAdmissionPolicy(o)
		}
	case *admissionv1.ValidatingAdmissionPolicyBinding:
		if o != nil {
			matchResources(o.Spec.MatchResources)
		}
	case *admissionv1.MutatingAdmissionPolicy:
		if o != nil {
			mutatingAdmissionPolicy(o)
		}
	case *admissionv1.MutatingAdmissionPolicyBinding:
		if o != nil {
			matchResources(o.Spec.MatchResources)
		}
	case *storagev1.StorageClass:
		if o != nil {
			storageClass(o)
		}
	case *storagev1.CSIDriver:
		if o != nil {
			csiDriver(o)
		}
	case *certificatesv1.CertificateSigningRequest:
		if o != nil {
			csr(o)
		}
	case *apiregistrationv1.APIService:
		if o != nil && o.Spec.Service != nil && o.Spec.Service.Port == nil {
			o.Spec.Service.Port = ptr[int32](443)
		}
	case *flowcontrolv1.FlowSchema:
		if o != nil {
			flowSchema(o)
		}
	case *flowcontrolv1.PriorityLevelConfiguration:
		if o != nil {
			priorityLevelConfiguration(o)
		}
	case *apiextensionsv1.CustomResourceDefinition:
		definition.Default(o)
	case *networkingv1.NetworkPolicy:
		if o != nil {
			networkPolicy(o)
		}
	case *networkingv1.IngressClass:
		if o != nil {
			ingressClass(o)
		}
	case *discoveryv1.EndpointSlice:
		if o != nil {
			endpointSlice(o)
		}
	case *schedulingv1.PriorityClass:
		if o != nil {
			priorityClass(o)
		}
	case *autoscalingv1.HorizontalPodAutoscaler:
		if o != nil {
			hpaV1(o)
		}
	case *autoscalingv2.HorizontalPodAutoscaler:
		if o != nil {
			hpaV2(o)
		}
	}
}

func ptr[T any](v T) *T { return &v }
