package defaults

import (
	"encoding/json"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
)

var defaultedKinds = []func() runtime.Object{
	func() runtime.Object { return &corev1.Namespace{} },
	func() runtime.Object { return &corev1.Pod{} },
	func() runtime.Object { return &corev1.Node{} },
	func() runtime.Object { return &corev1.Service{} },
	func() runtime.Object { return &corev1.Endpoints{} },
	func() runtime.Object { return &corev1.Secret{} },
	func() runtime.Object { return &corev1.PersistentVolume{} },
	func() runtime.Object { return &corev1.PersistentVolumeClaim{} },
	func() runtime.Object { return &corev1.LimitRange{} },
	func() runtime.Object { return &appsv1.Deployment{} },
	func() runtime.Object { return &appsv1.ReplicaSet{} },
	func() runtime.Object { return &appsv1.StatefulSet{} },
	func() runtime.Object { return &appsv1.DaemonSet{} },
	func() runtime.Object { return &rbacv1.RoleBinding{} },
	func() runtime.Object { return &rbacv1.ClusterRoleBinding{} },
	func() runtime.Object { return &admissionv1.ValidatingWebhookConfiguration{} },
	func() runtime.Object { return &admissionv1.MutatingWebhookConfiguration{} },
	func() runtime.Object { return &admissionv1.ValidatingAdmissionPolicy{} },
	func() runtime.Object { return &admissionv1.ValidatingAdmissionPolicyBinding{} },
	func() runtime.Object { return &admissionv1.MutatingAdmissionPolicy{} },
	func() runtime.Object { return &admissionv1.MutatingAdmissionPolicyBinding{} },
	func() runtime.Object { return &storagev1.StorageClass{} },
	func() runtime.Object { return &storagev1.CSIDriver{} },
	func() runtime.Object { return &certificatesv1.CertificateSigningRequest{} },
	func() runtime.Object { return &apiextensionsv1.CustomResourceDefinition{} },
}

// FuzzApply decodes arbitrary JSON into each defaulted type: Apply must not
// panic and must be idempotent, as decoding a stored object defaults again.
func FuzzApply(f *testing.F) {
	for i, s := range []string{
		`{}`,
		`{"metadata":{"name":"x"},"spec":{"containers":[{"image":"a:latest","ports":[{}]}],"hostNetwork":true,"volumes":[{"name":"v"},{"projected":{"sources":[{"serviceAccountToken":{}}]}}]}}`,
		`{"spec":{"type":"LoadBalancer","sessionAffinity":"ClientIP","sessionAffinityConfig":{"clientIP":{}},"ports":[{"targetPort":""}]}}`,
		`{"webhooks":[{"clientConfig":{"service":{}},"rules":[{}]}]}`,
		`{"spec":{"matchConstraints":{"resourceRules":[{}],"excludeResourceRules":[{}]},"matchResources":{}}}`,
		`{"spec":{"strategy":{"type":"RollingUpdate"},"updateStrategy":{"type":"RollingUpdate"},"limits":[{"type":"Container","max":{"cpu":"1"}}]}}`,
		`{"stringData":{"a":"b"},"subjects":[{"kind":"User"}],"status":{"capacity":{"cpu":"1"},"conditions":[{}]}}`,
	} {
		for k := range defaultedKinds {
			f.Add(uint8(k+i), []byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		obj := defaultedKinds[int(kind)%len(defaultedKinds)]()
		if err := json.Unmarshal(data, obj); err != nil {
			return
		}
		Apply(obj)
		again := obj.DeepCopyObject()
		Apply(again)
		if !equality.Semantic.DeepEqual(obj, again) {
			t.Fatalf("Apply is not idempotent for %T", obj)
		}
	})
}
