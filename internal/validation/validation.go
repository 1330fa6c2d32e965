package validation

import (
	"reflect"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	genericvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/portcullis/portcullis/internal/registry"
)

// Create validates a new object of any served type (a typed k8s.io/api
// object such as *corev1.Pod). An unknown type yields one internal error
// wrapping ErrUnsupportedType.
func Create(obj runtime.Object) field.ErrorList {
	if isNil(obj) {
		return internalError(ErrNilObject, obj)
	}
	switch o := obj.(type) {
	case *corev1.Namespace:
		return validateNamespace(o)
	case *corev1.Pod:
		return validatePod(o)
	case *corev1.Node:
		return validateNode(o)
	case *corev1.Service:
		return validateService(o)
	case *corev1.Endpoints:
		return validateEndpoints(o)
	case *corev1.ConfigMap:
		return validateConfigMap(o)
	case *corev1.Secret:
		return validateSecret(o)
	case *corev1.ServiceAccount:
		return validateServiceAccount(o)
	case *corev1.PersistentVolume:
		return validatePersistentVolume(o)
	case *corev1.PersistentVolumeClaim:
		return validatePersistentVolumeClaim(o)
	case *corev1.Event:
		return validateCoreEvent(o)
	case *corev1.LimitRange:
		return validateLimitRange(o)
	case *corev1.ResourceQuota:
		return validateResourceQuota(o)
	case *appsv1.Deployment:
		return validateDeployment(o)
	case *appsv1.ReplicaSet:
		return validateReplicaSet(o)
	case *appsv1.StatefulSet:
		return validateStatefulSet(o)
	case *appsv1.DaemonSet:
		return validateDaemonSet(o)
	case *rbacv1.Role:
		return validateRole(o)
	case *rbacv1.ClusterRole:
		return validateClusterRole(o)
	case *rbacv1.RoleBinding:
		return validateRoleBinding(o)
	case *rbacv1.ClusterRoleBinding:
		return validateClusterRoleBinding(o)
	case *admissionv1.ValidatingAdmissionPolicy:
		return validateValidatingAdmissionPolicy(o, policyOptions{})
	case *admissionv1.ValidatingAdmissionPolicyBinding:
		return validateValidatingAdmissionPolicyBinding(o)
	case *admissionv1.MutatingAdmissionPolicy:
		return validateMutatingAdmissionPolicy(o, policyOptions{})
	case *admissionv1.MutatingAdmissionPolicyBinding:
		return validateMutatingAdmissionPolicyBinding(o)
	case *admissionv1.ValidatingWebhookConfiguration:
		return validateValidatingWebhookConfiguration(o, strictWebhookOptions)
	case *admissionv1.MutatingWebhookConfiguration:
		return validateMutatingWebhookConfiguration(o, strictWebhookOptions)
	case *coordinationv1.Lease:
		return validateLease(o)
	case *storagev1.CSIDriver:
		return validateCSIDriver(o)
	case *storagev1.CSINode:
		return validateCSINode(o)
	case *storagev1.VolumeAttachment:
		return validateVolumeAttachment(o)
	case *storagev1.StorageClass:
		return validateStorageClass(o)
	case *certificatesv1.CertificateSigningRequest:
		return validateCSR(o)
	case *eventsv1.Event:
		return validateEventsV1(o)
	case *apiregistrationv1.APIService:
		return validateAPIService(o)
	case *flowcontrolv1.FlowSchema:
		return validateFlowSchema(o)
	case *flowcontrolv1.PriorityLevelConfiguration:
		return validatePriorityLevelConfiguration(o)
	case *apiextensionsv1.CustomResourceDefinition:
		return validateCRD(o)
	case *schedulingv1.PriorityClass:
		return validatePriorityClass(o)
	case *nodev1.RuntimeClass:
		return validateRuntimeClass(o)
	case *storagev1.VolumeAttributesClass:
		return validateVolumeAttributesClass(o)
	case *storagev1.CSIStorageCapacity:
		return validateCSIStorageCapacity(o)
	case *autoscalingv2.HorizontalPodAutoscaler:
		return validateHPA(o)
	case *autoscalingv1.HorizontalPodAutoscaler:
		return validateHPAV1(o)
	case *certificatesv1.ClusterTrustBundle:
		return validateClusterTrustBundle(o, true)
	case *networkingv1.Ingress:
		return validateIngress(o)
	case *networkingv1.IngressClass:
		return validateIngressClass(o)
	case *networkingv1.NetworkPolicy:
		return validateNetworkPolicy(o)
	case *networkingv1.IPAddress:
		return validateIPAddress(o)
	case *networkingv1.ServiceCIDR:
		return validateServiceCIDR(o)
	case *policyv1.PodDisruptionBudget:
		return validatePodDisruptionBudget(o)
	case *discoveryv1.EndpointSlice:
		return validateEndpointSlice(o)
	case *batchv1.Job:
		return validateJob(o)
	case *batchv1.CronJob:
		return validateCronJob(o)
	case *corev1.PodTemplate:
		return validatePodTemplateObject(o)
	case *corev1.ReplicationController:
		return validateReplicationController(o)
	case *appsv1.ControllerRevision:
		return validateControllerRevision(o)
	}
	return internalError(ErrUnsupportedType, obj)
}

// Update validates obj replacing old: everything Create checks on obj, plus
// the fields that may not change (metadata.name and namespace, a binding's
// roleRef, an immutable Secret's or ConfigMap's data, selectors, ...).
func Update(obj, old runtime.Object) field.ErrorList {
	if isNil(obj) || isNil(old) {
		return internalError(ErrNilObject, obj)
	}
	if reflect.TypeOf(obj) != reflect.TypeOf(old) {
		return internalError(ErrTypeMismatch, old)
	}
	errs := updateByKind(obj, old)
	if len(errs) == 1 && errs[0].Type == field.ErrorTypeInternal {
		return errs
	}
	// kube-apiserver checks every update's metadata generically as well;
	// what the kind's own rules already reported is not repeated.
	return appendNew(errs, genericMetaUpdate(obj, old)...)
}

func updateByKind(obj, old runtime.Object) field.ErrorList {
	switch o := obj.(type) {
	case *corev1.Namespace:
		// The namespace lifecycle owns spec.finalizers and status; an update
		// through the main resource cannot change them.
		return validateMetaUpdate(&o.ObjectMeta, &old.(*corev1.Namespace).ObjectMeta)
	case *corev1.Pod:
		return validatePodUpdate(o, old.(*corev1.Pod))
	case *corev1.Node:
		return validateNodeUpdate(o, old.(*corev1.Node))
	case *corev1.Service:
		return validateServiceUpdate(o, old.(*corev1.Service))
	case *corev1.ConfigMap:
		return validateConfigMapUpdate(o, old.(*corev1.ConfigMap))
	case *corev1.Secret:
		return validateSecretUpdate(o, old.(*corev1.Secret))
	case *corev1.PersistentVolume:
		return validatePersistentVolumeUpdate(o, old.(*corev1.PersistentVolume))
	case *corev1.PersistentVolumeClaim:
		return validatePersistentVolumeClaimUpdate(o, old.(*corev1.PersistentVolumeClaim))
	case *corev1.Event:
		return validateCoreEventUpdate(o, old.(*corev1.Event))
	case *appsv1.Deployment:
		return validateDeploymentUpdate(o, old.(*appsv1.Deployment))
	case *appsv1.ReplicaSet:
		return validateReplicaSetUpdate(o, old.(*appsv1.ReplicaSet))
	case *appsv1.StatefulSet:
		return validateStatefulSetUpdate(o, old.(*appsv1.StatefulSet))
	case *appsv1.DaemonSet:
		return validateDaemonSetUpdate(o, old.(*appsv1.DaemonSet))
	case *rbacv1.RoleBinding:
		return validateRoleBindingUpdate(o, old.(*rbacv1.RoleBinding))
	case *rbacv1.ClusterRoleBinding:
		return validateClusterRoleBindingUpdate(o, old.(*rbacv1.ClusterRoleBinding))
	case *admissionv1.ValidatingAdmissionPolicy:
		return validateValidatingAdmissionPolicyUpdate(o, old.(*admissionv1.ValidatingAdmissionPolicy))
	case *admissionv1.MutatingAdmissionPolicy:
		return validateMutatingAdmissionPolicyUpdate(o, old.(*admissionv1.MutatingAdmissionPolicy))
	case *admissionv1.ValidatingWebhookConfiguration:
		return validateValidatingWebhookConfigurationUpdate(o, old.(*admissionv1.ValidatingWebhookConfiguration))
	case *admissionv1.MutatingWebhookConfiguration:
		return validateMutatingWebhookConfigurationUpdate(o, old.(*admissionv1.MutatingWebhookConfiguration))
	case *storagev1.StorageClass:
		return validateStorageClassUpdate(o, old.(*storagev1.StorageClass))
	case *storagev1.CSIDriver:
		return validateCSIDriverUpdate(o, old.(*storagev1.CSIDriver))
	case *storagev1.VolumeAttachment:
		return validateVolumeAttachmentUpdate(o, old.(*storagev1.VolumeAttachment))
	case *eventsv1.Event:
		return validateEventsV1Update(o, old.(*eventsv1.Event))
	case *apiextensionsv1.CustomResourceDefinition:
		return validateCRDUpdate(o, old.(*apiextensionsv1.CustomResourceDefinition))
	case *schedulingv1.PriorityClass:
		return validatePriorityClassUpdate(o, old.(*schedulingv1.PriorityClass))
	case *nodev1.RuntimeClass:
		return validateRuntimeClassUpdate(o, old.(*nodev1.RuntimeClass))
	case *storagev1.VolumeAttributesClass:
		return validateVolumeAttributesClassUpdate(o, old.(*storagev1.VolumeAttributesClass))
	case *storagev1.CSIStorageCapacity:
		return validateCSIStorageCapacityUpdate(o, old.(*storagev1.CSIStorageCapacity))
	case *autoscalingv2.HorizontalPodAutoscaler:
		return validateHPAUpdate(o, old.(*autoscalingv2.HorizontalPodAutoscaler))
	case *autoscalingv1.HorizontalPodAutoscaler:
		return hpaV1Pair(o, old.(*autoscalingv1.HorizontalPodAutoscaler), validateHPAUpdate)
	case *certificatesv1.ClusterTrustBundle:
		return validateClusterTrustBundleUpdate(o, old.(*certificatesv1.ClusterTrustBundle))
	case *networkingv1.Ingress:
		return validateIngressUpdate(o, old.(*networkingv1.Ingress))
	case *networkingv1.IngressClass:
		return validateIngressClassUpdate(o, old.(*networkingv1.IngressClass))
	case *networkingv1.NetworkPolicy:
		return validateNetworkPolicyUpdate(o, old.(*networkingv1.NetworkPolicy))
	case *networkingv1.IPAddress:
		return validateIPAddressUpdate(o, old.(*networkingv1.IPAddress))
	case *networkingv1.ServiceCIDR:
		return validateServiceCIDRUpdate(o, old.(*networkingv1.ServiceCIDR))
	case *policyv1.PodDisruptionBudget:
		return validatePodDisruptionBudgetUpdate(o, old.(*policyv1.PodDisruptionBudget))
	case *discoveryv1.EndpointSlice:
		return validateEndpointSliceUpdate(o, old.(*discoveryv1.EndpointSlice))
	case *batchv1.Job:
		return validateJobUpdate(o, old.(*batchv1.Job))
	case *batchv1.CronJob:
		return validateCronJobUpdate(o, old.(*batchv1.CronJob))
	case *corev1.PodTemplate:
		return validatePodTemplateObjectUpdate(o, old.(*corev1.PodTemplate))
	case *corev1.ReplicationController:
		return validateReplicationControllerUpdate(o, old.(*corev1.ReplicationController))
	case *appsv1.ControllerRevision:
		return validateControllerRevisionUpdate(o, old.(*appsv1.ControllerRevision))
	}
	// The remaining kinds have no rules beyond create's and metadata's.
	errs := Create(obj)
	if len(errs) == 1 && errs[0].Type == field.ErrorTypeInternal {
		return errs
	}
	return append(metaUpdateOf(obj, old), errs...)
}

// metaUpdateOf applies the common metadata update rules to any two objects
// of a served type.
func metaUpdateOf(obj, old runtime.Object) field.ErrorList {
	n, err1 := meta.Accessor(obj)
	o, err2 := meta.Accessor(old)
	if err1 != nil || err2 != nil {
		return nil
	}
	return validateMetaUpdate(n, o)
}

// genericMetaUpdate is the metadata check kube-apiserver runs on every
// update, whatever the kind: names as path segments, the namespace rule of
// the kind's scope, and the update rules.
func genericMetaUpdate(obj, old runtime.Object) field.ErrorList {
	n, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	errs := genericvalidation.ValidateObjectMetaAccessor(n, namespaced(obj), nameIsPathSegment, metadataPath)
	return append(errs, metaUpdateOf(obj, old)...)
}

// namespaced reports the scope of a served kind.
func namespaced(obj runtime.Object) bool {
	return !clusterScoped[reflect.TypeOf(obj)]
}

// clusterScoped holds the Go types of the cluster-scoped built-in
// resources, as the registry declares them.
var clusterScoped = func() map[reflect.Type]bool {
	types := map[reflect.Type]bool{}
	for _, r := range registry.Builtin() {
		if !r.Namespaced {
			types[reflect.TypeOf(r.New())] = true
		}
	}
	return types
}()

// appendNew appends the errors of extra that errs does not already hold.
func appendNew(errs field.ErrorList, extra ...*field.Error) field.ErrorList {
	seen := map[string]bool{}
	for _, e := range errs {
		seen[e.Error()] = true
	}
	for _, e := range extra {
		if !seen[e.Error()] {
			seen[e.Error()] = true
			errs = append(errs, e)
		}
	}
	return errs
}
