package priority

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

var (
	pods            = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	priorityClasses = schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses"}
)

func policy(p corev1.PreemptionPolicy) *corev1.PreemptionPolicy { return &p }
func prio(v int32) *int32                                       { return &v }

func class(name string, value int32, def bool, pp *corev1.PreemptionPolicy) *schedulingv1.PriorityClass {
	return &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value, GlobalDefault: def, PreemptionPolicy: pp}
}

var (
	systemNode = class("system-node-critical", 2000001000, false, policy(corev1.PreemptLowerPriority))
	high       = class("high", 1000, false, policy(corev1.PreemptNever))
	nopolicy   = class("nopolicy", 7, false, nil)
	default10  = class("default10", 10, true, policy(corev1.PreemptLowerPriority))
	default5   = class("default5", 5, true, policy(corev1.PreemptNever))
)

// store serves classes; "broken" fails to read and a nil list fails to list.
type store []*schedulingv1.PriorityClass

func (s store) get(_ context.Context, name string) (*schedulingv1.PriorityClass, error) {
	if name == "broken" {
		return nil, errors.New("store unavailable")
	}
	for _, pc := range s {
		if pc.Name == name {
			return pc, nil
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}, name)
}

func (s store) list(context.Context) ([]*schedulingv1.PriorityClass, error) {
	if s == nil {
		return nil, errors.New("list unavailable")
	}
	return s, nil
}

type podSpec struct {
	class  string
	prio   *int32
	policy *corev1.PreemptionPolicy
}

func pod(s podSpec) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec: corev1.PodSpec{PriorityClassName: s.class, Priority: s.prio, PreemptionPolicy: s.policy}}
}

func statusOf(t *testing.T, err error) *metav1.Status {
	t.Helper()
	if err == nil {
		return nil
	}
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		t.Fatalf("got %T %v, want an API status", err, err)
	}
	s := st.Status()
	return &metav1.Status{Code: s.Code, Reason: s.Reason, Message: s.Message}
}

func TestAdmit(t *testing.T) {
	tests := []struct {
		name    string
		classes store
		a       *admission.Attributes
		want    runtime.Object
		wantErr *metav1.Status
	}{
		{
			name:    "no class, no default",
			classes: store{high},
			a:       &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{})},
			want:    pod(podSpec{prio: prio(0), policy: policy(corev1.PreemptLowerPriority)}),
		},
		{
			name:    "no class takes the lowest global default",
			classes: store{default10, high, default5},
			a:       &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{})},
			want:    pod(podSpec{class: "default5", prio: prio(5), policy: policy(corev1.PreemptNever)}),
		},
		{
			name:    "named class",
			classes: store{high, default10},
			a:       &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{class: "high"})},
			want:    pod(podSpec{class: "high", prio: prio(1000), policy: policy(corev1.PreemptNever)}),
		},
		{
			name:    "system class in any namespace",
			classes: store{systemNode},
			a:       &admission.Attributes{Resource: pods, Namespace: "ns", Operation: admission.Create, Object: pod(podSpec{class: "system-node-critical"})},
			want:    pod(podSpec{class: "system-node-critical", prio: prio(2000001000), policy: policy(corev1.PreemptLowerPriority)}),
		},
		{
			name:    "class without a policy keeps the pod's",
			classes: store{nopolicy},
			a:       &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{class: "nopolicy", policy: policy(corev1.PreemptNever)})},
			want:    pod(podSpec{class: "nopolicy", prio: prio(7), policy: policy(corev1.PreemptNever)}),
		},
		{
			name:    "matching priority given",
			classes: store{high},
			a:       &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{class: "high", prio: prio(1000)})},
			want:    pod(podSpec{class: "high", prio: prio(1000), policy: policy(corev1.PreemptNever)}),
		},
		{
			name:    "missing class",
			classes: store{high},
			a:       &admission.Attributes{Resource: pods, Name: "p", Operation: admission.Create, Object: pod(podSpec{class: "nope"})},
			want:    pod(podSpec{class: "nope"}),
			wantErr: &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden, Message: `pods "p" is forbidden: no PriorityClass with name nope was found`},
		},
		{
			name:    "different priority given",
			classes: store{high},
			a:       &admission.Attributes{Resource: pods, Name: "p", Operation: admission.Create, Object: pod(podSpec{class: "high", prio: prio(1)})},
			want:    pod(podSpec{class: "high", prio: prio(1)}),
			wantErr: &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden,
				Message: `pods "p" is forbidden: the integer value of priority (1) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name`},
		},
		{
			name:    "different policy given",
			classes: store{high},
			a:       &admission.Attributes{Resource: pods, Name: "p", Operation: admission.Create, Object: pod(podSpec{class: "high", policy: policy(corev1.PreemptLowerPriority)})},
			want:    pod(podSpec{class: "high", prio: prio(1000), policy: policy(corev1.PreemptLowerPriority)}),
			wantErr: &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden,
				Message: `pods "p" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name`},
		},
		{
			name:    "read failure",
			classes: store{},
			a:       &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{class: "broken"})},
			want:    pod(podSpec{class: "broken"}),
			wantErr: &metav1.Status{Code: 500, Message: "failed to resolve PriorityClass with name broken: store unavailable"},
		},
		{
			name:    "list failure",
			classes: nil,
			a:       &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{})},
			want:    pod(podSpec{}),
			wantErr: &metav1.Status{Code: 500, Message: "error occurred while retrieving default priority class: list unavailable"},
		},
		{
			name:    "update keeps the stored priority and policy",
			classes: store{},
			a: &admission.Attributes{Resource: pods, Operation: admission.Update, Object: pod(podSpec{class: "high"}),
				OldObject: pod(podSpec{class: "high", prio: prio(1000), policy: policy(corev1.PreemptNever)})},
			want: pod(podSpec{class: "high", prio: prio(1000), policy: policy(corev1.PreemptNever)}),
		},
		{
			name:    "update leaves a changed priority to validation",
			classes: store{},
			a: &admission.Attributes{Resource: pods, Operation: admission.Update, Object: pod(podSpec{class: "high", prio: prio(3)}),
				OldObject: pod(podSpec{class: "high", prio: prio(1000)})},
			want: pod(podSpec{class: "high", prio: prio(3)}),
		},
		{
			name:    "subresource",
			classes: store{high},
			a:       &admission.Attributes{Resource: pods, Subresource: "status", Operation: admission.Update, Object: pod(podSpec{class: "nope"})},
			want:    pod(podSpec{class: "nope"}),
		},
		{
			name:    "not a pod",
			classes: store{},
			a:       &admission.Attributes{Resource: pods, Operation: admission.Create, Object: &corev1.Node{}},
			want:    &corev1.Node{},
			wantErr: &metav1.Status{Code: 400, Reason: metav1.StatusReasonBadRequest, Message: "resource was marked with kind Pod but was unable to be converted"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New(tt.classes.get, tt.classes.list).Admit(context.Background(), tt.a)
			if diff := cmp.Diff(tt.wantErr, statusOf(t, err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, tt.a.Object); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		classes store
		a       *admission.Attributes
		want    *metav1.Status
	}{
		{
			name:    "first default",
			classes: store{high},
			a:       &admission.Attributes{Resource: priorityClasses, Operation: admission.Create, Object: class("d", 1, true, nil)},
		},
		{
			name:    "second default",
			classes: store{default10},
			a:       &admission.Attributes{Resource: priorityClasses, Operation: admission.Create, Object: class("d", 1, true, nil)},
			want: &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden,
				Message: `priorityclasses.scheduling.k8s.io "d" is forbidden: PriorityClass default10 is already marked as default. Only one default can exist`},
		},
		{
			name:    "updating the default itself",
			classes: store{default10},
			a:       &admission.Attributes{Resource: priorityClasses, Name: "default10", Operation: admission.Update, Object: class("default10", 10, true, nil)},
		},
		{
			name:    "marking another default",
			classes: store{default10, high},
			a:       &admission.Attributes{Resource: priorityClasses, Name: "high", Operation: admission.Update, Object: class("high", 1000, true, nil)},
			want: &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden,
				Message: `priorityclasses.scheduling.k8s.io "high" is forbidden: PriorityClass default10 is already marked as default. Only one default can exist`},
		},
		{
			name:    "not a default",
			classes: nil,
			a:       &admission.Attributes{Resource: priorityClasses, Operation: admission.Create, Object: class("x", 1, false, nil)},
		},
		{
			name:    "list failure",
			classes: nil,
			a:       &admission.Attributes{Resource: priorityClasses, Operation: admission.Create, Object: class("x", 1, true, nil)},
			want:    &metav1.Status{Code: 500, Message: "failed to get default priority class: list unavailable"},
		},
		{
			name:    "pods are not validated",
			classes: nil,
			a:       &admission.Attributes{Resource: pods, Operation: admission.Create, Object: pod(podSpec{class: "nope"})},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New(tt.classes.get, tt.classes.list).Validate(context.Background(), tt.a)
			if diff := cmp.Diff(tt.want, statusOf(t, err)); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}
