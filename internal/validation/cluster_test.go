package validation

import (
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestClusterKindsCreate(t *testing.T) {
	target := autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}
	tests := []struct {
		name string
		obj  runtime.Object
		want []string
	}{
		{"priority class", defaulted(&schedulingv1.PriorityClass{ObjectMeta: om("high"), Value: 1000}), nil},
		{"system priority class", defaulted(&schedulingv1.PriorityClass{ObjectMeta: om("system-node-critical"), Value: 2000001000}), nil},
		{"unknown system priority class", defaulted(&schedulingv1.PriorityClass{ObjectMeta: om("system-x"), Value: 1}),
			[]string{`metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-x is not a known system priority class`}},
		{"system priority class with another value", defaulted(&schedulingv1.PriorityClass{ObjectMeta: om("system-cluster-critical"), Value: 1}),
			[]string{`metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-cluster-critical PriorityClass must be 2000000000`}},
		{"priority too high", &schedulingv1.PriorityClass{ObjectMeta: om("p"), Value: 1000000001, PreemptionPolicy: ptr(corev1.PreemptionPolicy("Sometimes"))},
			[]string{
				`value: Forbidden: maximum allowed value of a user defined priority is 1000000000`,
				`preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"`,
			}},
		{"runtime class", &nodev1.RuntimeClass{ObjectMeta: om("gvisor"), Handler: "runsc"}, nil},
		{"runtime class without handler", &nodev1.RuntimeClass{ObjectMeta: om("gvisor")}, []string{`handler: Required value`}},
		{"runtime class duplicate tolerations", &nodev1.RuntimeClass{ObjectMeta: om("gvisor"), Handler: "runsc", Scheduling: &nodev1.Scheduling{
			Tolerations: []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists}, {Key: "a", Operator: corev1.TolerationOpExists}}}},
			[]string{`scheduling.tolerations[1]: Duplicate value: {"Key":"a","Operator":"Exists","Value":"","Effect":"","TolerationSeconds":null}`}},
		{"volume attributes class", &storagev1.VolumeAttributesClass{ObjectMeta: om("gold"), DriverName: "ebs.csi.aws.com", Parameters: map[string]string{"iops": "3000"}}, nil},
		{"volume attributes class empty", &storagev1.VolumeAttributesClass{ObjectMeta: om("gold")},
			[]string{`driverName: Required value`, `parameters: Required value: must contain at least one key/value pair`}},
		{"storage capacity", &storagev1.CSIStorageCapacity{ObjectMeta: omNS("c", "ns"), StorageClassName: "fast", Capacity: resource.NewQuantity(-1, resource.BinarySI)},
			[]string{`capacity: Invalid value: "-1": must be greater than or equal to 0`}},
		{"hpa", defaulted(&autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: omNS("h", "ns"), Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: target, MaxReplicas: 3}}), nil},
		{"hpa scaling to zero on cpu", &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: omNS("h", "ns"), Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "v1", Kind: "Deployment", Name: "web"}, MinReplicas: ptr[int32](0), MaxReplicas: 3}},
			[]string{
				`spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group`,
				`spec.metrics: Forbidden: must specify at least one Object or External metric to support scaling to zero replicas`,
			}},
		{"hpa v1 validated as v2", &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: omNS("h", "ns"), Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}, MinReplicas: ptr[int32](1), MaxReplicas: 3,
			TargetCPUUtilizationPercentage: ptr[int32](0)}},
			[]string{`spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0`}},
		{"trust bundle without anchors", &certificatesv1.ClusterTrustBundle{ObjectMeta: om("b"), Spec: certificatesv1.ClusterTrustBundleSpec{TrustBundle: "x"}},
			[]string{`spec.trustBundle: Invalid value: "<value omitted>": at least one trust anchor must be provided`}},
		{"trust bundle named without its signer", &certificatesv1.ClusterTrustBundle{ObjectMeta: om("b"), Spec: certificatesv1.ClusterTrustBundleSpec{SignerName: "example.com/s", TrustBundle: "x"}},
			[]string{
				`metadata.name: Invalid value: "b": ClusterTrustBundle for signerName example.com/s must be named with prefix example.com:s:`,
				`spec.trustBundle: Invalid value: "<value omitted>": at least one trust anchor must be provided`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectErrors(t, Create(tt.obj), tt.want)
		})
	}
}

func TestClusterKindsUpdate(t *testing.T) {
	rv := func(o runtime.Object) runtime.Object {
		o.(interface{ SetResourceVersion(string) }).SetResourceVersion("1")
		return o
	}
	tests := []struct {
		name     string
		obj, old runtime.Object
		want     []string
	}{
		{"priority class value",
			rv(defaulted(&schedulingv1.PriorityClass{ObjectMeta: om("p"), Value: 2})), rv(defaulted(&schedulingv1.PriorityClass{ObjectMeta: om("p"), Value: 1})),
			[]string{`value: Forbidden: may not be changed in an update.`}},
		{"runtime class handler",
			rv(&nodev1.RuntimeClass{ObjectMeta: om("r"), Handler: "b"}), rv(&nodev1.RuntimeClass{ObjectMeta: om("r"), Handler: "a"}),
			[]string{`handler: Invalid value: null: field is immutable`}},
		{"volume attributes class",
			rv(&storagev1.VolumeAttributesClass{ObjectMeta: om("v"), DriverName: "b.example.com", Parameters: map[string]string{"a": "2"}}),
			rv(&storagev1.VolumeAttributesClass{ObjectMeta: om("v"), DriverName: "a.example.com", Parameters: map[string]string{"a": "1"}}),
			[]string{`driverName: Forbidden: updates to driverName are forbidden.`, `parameters: Forbidden: updates to parameters are forbidden.`}},
		{"storage capacity class",
			rv(&storagev1.CSIStorageCapacity{ObjectMeta: omNS("c", "ns"), StorageClassName: "b"}), rv(&storagev1.CSIStorageCapacity{ObjectMeta: omNS("c", "ns"), StorageClassName: "a"}),
			[]string{`storageClassName: Invalid value: "b": field is immutable`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expectErrors(t, Update(tt.obj, tt.old), tt.want)
		})
	}
}
