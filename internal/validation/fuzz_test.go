package validation

import (
	"encoding/json"
	"testing"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/defaults"
)

// servedKinds makes a fresh object of every served type.
var servedKinds = []func() runtime.Object{
	func() runtime.Object { return &corev1.Namespace{} },
	func() runtime.Object { return &corev1.Pod{} },
	func() runtime.Object { return &corev1.Node{} },
	func() runtime.Object { return &corev1.Service{} },
	func() runtime.Object { return &corev1.Endpoints{} },
	func() runtime.Object { return &corev1.ConfigMap{} },
	func() runtime.Object { return &corev1.Secret{} },
	func() runtime.Object { return &corev1.ServiceAccount{} },
	func() runtime.Object { return &corev1.PersistentVolume{} },
	func() runtime.Object { return &corev1.PersistentVolumeClaim{} },
	func() runtime.Object { return &corev1.Event{} },
	func() runtime.Object { return &corev1.LimitRange{} },
	func() runtime.Object { return &corev1.ResourceQuota{} },
	func() runtime.Object { return &appsv1.Deployment{} },
	func() runtime.Object { return &appsv1.ReplicaSet{} },
	func() runtime.Object { return &appsv1.StatefulSet{} },
	func() runtime.Object { return &appsv1.DaemonSet{} },
	func() runtime.Object { return &rbacv1.Role{} },
	func() runtime.Object { return &rbacv1.ClusterRole{} },
	func() runtime.Object { return &rbacv1.RoleBinding{} },
	func() runtime.Object { return &rbacv1.ClusterRoleBinding{} },
	func() runtime.Object { return &admissionv1.ValidatingAdmissionPolicy{} },
	func() runtime.Object { return &admissionv1.ValidatingAdmissionPolicyBinding{} },
	func() runtime.Object { return &admissionv1.MutatingAdmissionPolicy{} },
	func() runtime.Object { return &admissionv1.MutatingAdmissionPolicyBinding{} },
	func() runtime.Object { return &admissionv1.ValidatingWebhookConfiguration{} },
	func() runtime.Object { return &admissionv1.MutatingWebhookConfiguration{} },
	func() runtime.Object { return &coordinationv1.Lease{} },
	func() runtime.Object { return &storagev1.CSIDriver{} },
	func() runtime.Object { return &storagev1.CSINode{} },
	func() runtime.Object { return &storagev1.VolumeAttachment{} },
	func() runtime.Object { return &storagev1.StorageClass{} },
	func() runtime.Object { return &certificatesv1.CertificateSigningRequest{} },
	func() runtime.Object { return &eventsv1.Event{} },
	func() runtime.Object { return &apiextensionsv1.CustomResourceDefinition{} },
}

// FuzzValidate decodes arbitrary JSON into each served type and runs
// defaulting, create and update validation: none may panic.
func FuzzValidate(f *testing.F) {
	seeds := []string{
		`{}`,
		`{"metadata":{"name":"x","namespace":"ns","resourceVersion":"1"}}`,
		`{"metadata":{"name":"x"},"webhooks":[{"name":"a.b.c","clientConfig":{"url":"https://h/p?q#f","service":{"path":"//"}},"rules":[{"operations":["*"],"resources":["*/*","x/*","*/y"]}],"matchConditions":[{"name":""}]}]}`,
		`{"metadata":{"name":"x"},"spec":{"matchConstraints":{"resourceRules":[{"resourceNames":["a","a"],"operations":["DELETE"]}]},"paramKind":{"apiVersion":"/"},"validations":[{"expression":" ","message":"\n"}],"auditAnnotations":[{"key":""}],"mutations":[{"patchType":"JSONPatch","applyConfiguration":{}}],"variables":[{"name":"in"}]}}`,
		`{"metadata":{"name":"x","namespace":"ns"},"spec":{"containers":[{"name":"a","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"1"},"requests":{"cpu":"2","example.com/gpu":"1"}},"env":[{"name":"x","valueFrom":{}}]}],"volumes":[{"name":"v"}]}}`,
		`{"metadata":{"name":"x","namespace":"ns"},"spec":{"selector":{"matchExpressions":[{"key":"a","operator":"Bogus"}]},"template":{"spec":{}},"strategy":{"type":"X","rollingUpdate":{"maxSurge":"500%"}},"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":0}}}}`,
		`{"metadata":{"name":"x"},"roleRef":{"kind":"Role"},"subjects":[{"kind":"User"},{"kind":"ServiceAccount"}],"rules":[{"nonResourceURLs":["/x"],"apiGroups":[""]}]}`,
		`{"metadata":{"name":"x"},"spec":{"request":"eA==","usages":["any","any"],"signerName":"a/b/c","expirationSeconds":1}}`,
		`{"metadata":{"name":"x","namespace":"ns"},"eventTime":"2024-01-01T00:00:00.000000Z","series":{"count":1},"type":"Info"}`,
		`{"metadata":{"name":"x","namespace":"ns"},"type":"kubernetes.io/tls","data":{"a b":"eA=="},"stringData":{"k":"v"},"immutable":true}`,
	}
	for i, s := range seeds {
		for k := range servedKinds {
			if (k+i)%3 == 0 {
				f.Add(uint8(k), []byte(s))
			}
		}
	}
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		newObj := servedKinds[int(kind)%len(servedKinds)]
		obj := newObj()
		if err := json.Unmarshal(data, obj); err != nil {
			return
		}
		_ = Create(obj)
		defaults.Apply(obj)
		_ = Create(obj)
		old := obj.DeepCopyObject()
		_ = Update(obj, old)
		_ = Update(obj, newObj())
		_ = Update(newObj(), obj)
		_ = StatusUpdate(obj, old)
		_ = StatusUpdate(newObj(), obj)
	})
}
