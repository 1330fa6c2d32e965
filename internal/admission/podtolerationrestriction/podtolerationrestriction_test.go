package podtolerationrestriction

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

var pods = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

const clusterConfig = `
apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1
kind: Configuration
default:
- key: cluster
  operator: Exists
  effect: NoSchedule
whitelist:
- key: cluster
  operator: Exists
- key: memory-free
  operator: Exists
- key: node.kubernetes.io/memory-pressure
  operator: Exists
`

var (
	tolCluster  = corev1.Toleration{Key: "cluster", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	tolNS       = corev1.Toleration{Key: "ns", Operator: corev1.TolerationOpExists}
	tolNSv      = corev1.Toleration{Key: "ns", Operator: corev1.TolerationOpEqual, Value: "v", Effect: corev1.TaintEffectNoExecute}
	tolOther    = corev1.Toleration{Key: "other", Operator: corev1.TolerationOpExists}
	tolFree     = corev1.Toleration{Key: "memory-free", Operator: corev1.TolerationOpExists}
	tolPressure = memoryPressure
)

func namespaces(_ context.Context, name string) (*corev1.Namespace, error) {
	ann := map[string]map[string]string{
		"plain": nil,
		"own": {
			DefaultTolerationsAnnotation: `[{"key": "ns", "operator": "Exists"}]`,
			WhitelistAnnotation:          `[{"key": "ns", "operator": "Exists"}, {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists"}]`,
		},
		"empty":     {DefaultTolerationsAnnotation: "", WhitelistAnnotation: ""},
		"malformed": {DefaultTolerationsAnnotation: `{`, WhitelistAnnotation: `{`},
	}
	if name == "broken" {
		return nil, errors.New("store unavailable")
	}
	a, ok := ann[name]
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: a}}, nil
}

type podSpec struct {
	burstable bool
	tols      []corev1.Toleration
}

func pod(s podSpec) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "c"}}, Tolerations: s.tols}}
	if s.burstable {
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")}
	}
	return p
}

func statusOf(t *testing.T, err error) *metav1.Status {
	t.Helper()
	if err == nil {
		return nil
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("got %T %v, want a *StatusError", err, err)
	}
	return &metav1.Status{Code: se.ErrStatus.Code, Reason: se.ErrStatus.Reason, Message: se.ErrStatus.Message}
}

var quantities = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })

func TestAdmit(t *testing.T) {
	tests := []struct {
		name    string
		config  string
		a       *admission.Attributes
		want    runtime.Object
		wantErr *metav1.Status
	}{
		{
			name:   "cluster default",
			config: clusterConfig,
			a:      &admission.Attributes{Resource: pods, Namespace: "plain", Operation: admission.Create, Object: pod(podSpec{})},
			want:   pod(podSpec{tols: []corev1.Toleration{tolCluster}}),
		},
		{
			name:   "cluster default and memory pressure for a burstable pod",
			config: clusterConfig,
			a:      &admission.Attributes{Resource: pods, Namespace: "plain", Operation: admission.Create, Object: pod(podSpec{burstable: true, tols: []corev1.Toleration{tolFree}})},
			want:   pod(podSpec{burstable: true, tols: []corev1.Toleration{tolFree, tolCluster, tolPressure}}),
		},
		{
			name:   "namespace default merged, covered toleration dropped",
			config: clusterConfig,
			a:      &admission.Attributes{Resource: pods, Namespace: "own", Operation: admission.Create, Object: pod(podSpec{tols: []corev1.Toleration{tolNSv}})},
			want:   pod(podSpec{tols: []corev1.Toleration{tolNS}}),
		},
		{
			name:   "namespace whitelist refuses",
			config: clusterConfig,
			a:      &admission.Attributes{Resource: pods, Namespace: "own", Operation: admission.Create, Object: pod(podSpec{tols: []corev1.Toleration{tolOther}})},
			want:   pod(podSpec{tols: []corev1.Toleration{tolOther, tolNS}}),
			wantErr: &metav1.Status{Code: 500,
				Message: "pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist"},
		},
		{
			name:   "cluster whitelist refuses",
			config: clusterConfig,
			a:      &admission.Attributes{Resource: pods, Namespace: "plain", Operation: admission.Create, Object: pod(podSpec{tols: []corev1.Toleration{tolOther}})},
			want:   pod(podSpec{tols: []corev1.Toleration{tolOther, tolCluster}}),
			wantErr: &metav1.Status{Code: 500,
				Message: "pod tolerations (possibly merged with namespace default tolerations) conflict with its cluster whitelist"},
		},
		{
			name:   "empty annotations: no defaults and no restriction",
			config: clusterConfig,
			a:      &admission.Attributes{Resource: pods, Namespace: "empty", Operation: admission.Create, Object: pod(podSpec{tols: []corev1.Toleration{tolOther}})},
			want:   pod(podSpec{tols: []corev1.Toleration{tolOther}}),
		},
		{
			name:   "update adds no defaults but memory pressure",
			config: clusterConfig,
			a: &admission.Attributes{Resource: pods, Namespace: "plain", Operation: admission.Update,
				Object: pod(podSpec{burstable: true}), OldObject: pod(podSpec{burstable: true})},
			want: pod(podSpec{burstable: true, tols: []corev1.Toleration{tolPressure}}),
		},
		{
			name: "no configuration",
			a:    &admission.Attributes{Resource: pods, Namespace: "plain", Operation: admission.Create, Object: pod(podSpec{tols: []corev1.Toleration{tolOther}})},
			want: pod(podSpec{tols: []corev1.Toleration{tolOther}}),
		},
		{
			name:    "malformed annotation",
			a:       &admission.Attributes{Resource: pods, Namespace: "malformed", Operation: admission.Create, Object: pod(podSpec{})},
			want:    pod(podSpec{}),
			wantErr: &metav1.Status{Code: 500, Message: "unexpected end of JSON input"},
		},
		{
			name: "missing namespace",
			a:    &admission.Attributes{Resource: pods, Namespace: "gone", Operation: admission.Create, Object: pod(podSpec{})},
			want: pod(podSpec{}),
			wantErr: &metav1.Status{Code: 404, Reason: metav1.StatusReasonNotFound,
				Message: `namespaces "gone" not found`},
		},
		{
			name: "read failure",
			a:    &admission.Attributes{Resource: pods, Namespace: "broken", Operation: admission.Create, Object: pod(podSpec{})},
			want: pod(podSpec{}),
			wantErr: &metav1.Status{Code: 500, Reason: metav1.StatusReasonInternalError,
				Message: `Internal error occurred: store unavailable`},
		},
		{
			name:   "status is not the plugin's",
			config: clusterConfig,
			a:      &admission.Attributes{Resource: pods, Subresource: "status", Namespace: "plain", Operation: admission.Update, Object: pod(podSpec{burstable: true})},
			want:   pod(podSpec{burstable: true}),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New([]byte(tt.config), namespaces)
			if err != nil {
				t.Fatal(err)
			}
			err = p.Admit(context.Background(), tt.a)
			if diff := cmp.Diff(tt.wantErr, statusOf(t, err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, tt.a.Object, quantities); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBestEffort(t *testing.T) {
	one := resource.MustParse("1")
	zero := resource.MustParse("0")
	tests := []struct {
		name string
		pod  *corev1.Pod
		want bool
	}{
		{name: "no resources", pod: &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{}}}}, want: true},
		{name: "zero requests", pod: &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: zero}}}}}}, want: true},
		{name: "only an extended resource", pod: &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{"example.com/gpu": one}}}}}}, want: true},
		{name: "init container with a limit", pod: &corev1.Pod{Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Resources: corev1.ResourceRequirements{
			Limits: corev1.ResourceList{corev1.ResourceCPU: one}}}}, Containers: []corev1.Container{{}}}}, want: false},
		{name: "status wins", pod: &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{
			Limits: corev1.ResourceList{corev1.ResourceCPU: one}}}}}, Status: corev1.PodStatus{QOSClass: corev1.PodQOSBestEffort}}, want: true},
		{name: "pod-level resources win", pod: &corev1.Pod{Spec: corev1.PodSpec{
			Resources:  &corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: one}},
			Containers: []corev1.Container{{}}}}, want: false},
		{name: "pod-level hugepages only", pod: &corev1.Pod{Spec: corev1.PodSpec{
			Resources: &corev1.ResourceRequirements{Limits: corev1.ResourceList{"hugepages-2Mi": one}},
			Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{
				Limits: corev1.ResourceList{corev1.ResourceCPU: one}}}}}}, want: true},
		{name: "pod-level without supported resources", pod: &corev1.Pod{Spec: corev1.PodSpec{
			Resources: &corev1.ResourceRequirements{Limits: corev1.ResourceList{"example.com/gpu": one}},
			Containers: []corev1.Container{{Resources: corev1.ResourceRequirements{
				Limits: corev1.ResourceList{corev1.ResourceCPU: one}}}}}}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := bestEffort(tt.pod); got != tt.want {
				t.Errorf("bestEffort = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNewConfig(t *testing.T) {
	tests := []struct {
		name    string
		config  string
		want    *Configuration
		wantErr string
	}{
		{name: "none", want: &Configuration{}},
		{
			name:   "JSON",
			config: `{"apiVersion": "podtolerationrestriction.admission.k8s.io/v1alpha1", "kind": "Configuration", "whitelist": [{"key": "a", "operator": "Exists"}]}`,
			want: &Configuration{TypeMeta: metav1.TypeMeta{APIVersion: "podtolerationrestriction.admission.k8s.io/v1alpha1", Kind: "Configuration"},
				Whitelist: []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists}}},
		},
		{
			name:    "no type",
			config:  "default: []\n",
			wantErr: "PodTolerationRestriction configuration: apiVersion is missing",
		},
		{
			name:    "unknown field",
			config:  "apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1\nkind: Configuration\ndefaults: []\n",
			wantErr: `PodTolerationRestriction configuration: strict decoding error: unknown field "defaults"`,
		},
		{
			name: "invalid tolerations",
			config: `apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1
kind: Configuration
default:
- operator: Equal
  value: x
whitelist:
- key: a
  operator: Gt
  value: "1"
- key: b
  effect: NoSchedule
  tolerationSeconds: 5
`,
			wantErr: "PodTolerationRestriction configuration: invalid config: [" +
				"podtolerationrestriction.default[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\" " +
				"podtolerationrestriction.whitelist[0].operator: Unsupported value: \"Gt\": supported values: \"Equal\", \"Exists\", \"Lt\", \"Gt\" " +
				"podtolerationrestriction.whitelist[1].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set]",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := New([]byte(tt.config), namespaces)
			got := ""
			if err != nil {
				got = err.Error()
				if !errors.Is(err, ErrConfig) {
					t.Errorf("error %v is not ErrConfig", err)
				}
			}
			if diff := cmp.Diff(tt.wantErr, got); diff != "" {
				t.Fatalf("error (-want +got):\n%s", diff)
			}
			if err == nil {
				if diff := cmp.Diff(tt.want, p.config); diff != "" {
					t.Errorf("configuration (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func FuzzNew(f *testing.F) {
	f.Add([]byte(clusterConfig))
	f.Add([]byte(`{"apiVersion": "podtolerationrestriction.admission.k8s.io/v1alpha1", "kind": "Configuration", "default": [{"key": "a", "tolerationSeconds": 1}]}`))
	f.Add([]byte("kind: Configuration\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := New(data, namespaces)
		if err == nil && p == nil {
			t.Fatal("no plugin and no error")
		}
	})
}
