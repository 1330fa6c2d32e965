package webhook

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

func patchResponse(patch string) func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	return func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		pt := admissionv1.PatchTypeJSONPatch
		return &admissionv1.AdmissionResponse{Allowed: true, Patch: []byte(patch), PatchType: &pt}
	}
}

func TestMutatingPatches(t *testing.T) {
	label := newServer(t, patchResponse(`[{"op":"add","path":"/metadata/labels","value":{"team":"a"}}]`))
	container := newServer(t, patchResponse(`[{"op":"add","path":"/spec/containers/-","value":{"name":"sidecar","image":"envoy"}}]`))
	m := mutatingPlugin(t, mhook("label.example.com", label), mhook("sidecar.example.com", container))
	ctx, st := withState()
	a := podAttrs(admission.Create, nil)
	if err := m.Admit(ctx, a); err != nil {
		t.Fatal(err)
	}
	pod := a.Object.(*corev1.Pod)
	if pod.Labels["team"] != "a" || len(pod.Spec.Containers) != 2 || pod.Spec.Containers[1].Image != "envoy" {
		t.Fatalf("pod not patched: %+v", pod)
	}
	if !pod.GetObjectKind().GroupVersionKind().Empty() {
		t.Errorf("patched object gained a kind: %v", pod.GetObjectKind().GroupVersionKind())
	}
	anns := st.Annotations()
	want := map[string]string{
		MutationAnnotationPrefix + "round_0_index_0": `{"configuration":"cfg","webhook":"label.example.com","mutated":true}`,
		MutationAnnotationPrefix + "round_0_index_1": `{"configuration":"cfg","webhook":"sidecar.example.com","mutated":true}`,
		PatchAnnotationPrefix + "round_0_index_0":    `{"configuration":"cfg","webhook":"label.example.com","patch":[{"op":"add","path":"/metadata/labels","value":{"team":"a"}}],"patchType":"JSONPatch"}`,
	}
	for k, v := range want {
		if anns[k] != v {
			t.Errorf("annotation %s = %s, want %s", k, anns[k], v)
		}
	}
}

func TestMutatingReplicas(t *testing.T) {
	s := newServer(t, patchResponse(`[{"op":"replace","path":"/spec/replicas","value":3}]`))
	h := mhook("replicas.example.com", s)
	h.Rules = []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{"CREATE"},
		Rule: admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}
	m := mutatingPlugin(t, h)
	a := &admission.Attributes{
		Kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"},
		Name: "d", Namespace: "prod", Operation: admission.Create,
		Object: &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "prod"}, Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(1))}},
	}
	if err := m.Admit(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	if r := *a.Object.(*appsv1.Deployment).Spec.Replicas; r != 3 {
		t.Fatalf("replicas = %d", r)
	}
}

func TestMutatingErrors(t *testing.T) {
	tests := []struct {
		name, patch string
		patchType   *admissionv1.PatchType
		op          admission.Operation
		want        string
	}{
		{name: "patch on delete", patch: `[{"op":"add","path":"/x","value":1}]`, op: admission.Delete,
			want: `admission webhook "m.example.com" attempted to modify the object, which is not supported for this operation`},
		{name: "undecodable patch", patch: `{"op":1}`, op: admission.Create, want: `received undecodable patch in webhook response`},
		{name: "patch fails", patch: `[{"op":"remove","path":"/nope"}]`, op: admission.Create, want: "Internal error occurred"},
		{name: "patch without type", patch: `[]`, op: admission.Create, want: "webhook returned response.patch but not response.patchType"},
		{name: "unsupported type", patch: `[{"op":"add","path":"/x","value":1}]`, patchType: ptr(admissionv1.PatchType("MergePatch")), op: admission.Create,
			want: `failed calling webhook "m.example.com": unsupported patch type "MergePatch"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
				pt := tc.patchType
				if pt == nil && tc.name != "patch without type" {
					pt = ptr(admissionv1.PatchTypeJSONPatch)
				}
				return &admissionv1.AdmissionResponse{Allowed: true, Patch: []byte(tc.patch), PatchType: pt}
			})
			m := mutatingPlugin(t, mhook("m.example.com", s))
			err := m.Admit(t.Context(), podAttrs(tc.op, nil))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestMutatingReinvocation: an IfNeeded webhook runs again when a later
// webhook changed the object, and a Never webhook does not.
func TestMutatingReinvocation(t *testing.T) {
	var firstCalls, neverCalls atomic.Int32
	first := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		firstCalls.Add(1)
		return &admissionv1.AdmissionResponse{Allowed: true}
	})
	never := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		neverCalls.Add(1)
		return &admissionv1.AdmissionResponse{Allowed: true}
	})
	changer := newServer(t, func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		if strings.Contains(string(r.Object.Raw), `"team"`) {
			return &admissionv1.AdmissionResponse{Allowed: true}
		}
		return patchResponse(`[{"op":"add","path":"/metadata/labels","value":{"team":"a"}}]`)(r)
	})
	m := mutatingPlugin(t,
		mhook("a-first.example.com", first, func(w *admissionregistrationv1.MutatingWebhook) {
			w.ReinvocationPolicy = ptr(admissionregistrationv1.IfNeededReinvocationPolicy)
		}),
		mhook("b-never.example.com", never),
		mhook("c-changer.example.com", changer))
	ctx, st := withState()
	a := podAttrs(admission.Create, nil)
	if err := admission.AdmitWithReinvocation(ctx, a, []admission.Mutator{m}); err != nil {
		t.Fatal(err)
	}
	if firstCalls.Load() != 2 || neverCalls.Load() != 1 {
		t.Fatalf("calls: IfNeeded %d, Never %d; want 2 and 1", firstCalls.Load(), neverCalls.Load())
	}
	if _, ok := st.Annotations()[MutationAnnotationPrefix+"round_1_index_0"]; !ok {
		t.Errorf("no round 1 annotation: %v", st.Annotations())
	}

	// Without a reinvocation context the webhook runs once.
	firstCalls.Store(0)
	if err := m.Admit(context.Background(), podAttrs(admission.Create, nil)); err != nil {
		t.Fatal(err)
	}
	if firstCalls.Load() != 1 {
		t.Fatalf("IfNeeded called %d times without a chain", firstCalls.Load())
	}
}
