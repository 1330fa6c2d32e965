package webhook

import (
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
)

// answers is Options.Answers over recorded reviews by webhook name.
func answers(reviews map[string]string) func(string) ([]byte, bool) {
	return func(name string) ([]byte, bool) {
		r, ok := reviews[name]
		return []byte(r), ok
	}
}

// countingServer allows every request and counts them.
func countingServer(t *testing.T, calls *atomic.Int32) *server {
	return newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		calls.Add(1)
		return &admissionv1.AdmissionResponse{Allowed: true}
	})
}

func validatingAnswered(t *testing.T, reviews map[string]string, hooks ...admissionregistrationv1.ValidatingWebhook) *Validating {
	t.Helper()
	v, err := NewValidating(Options{Namespaces: namespaces, Answers: answers(reviews)})
	if err != nil {
		t.Fatal(err)
	}
	v.Upsert(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Webhooks: hooks})
	return v
}

// TestValidatingRecordedAnswers: a recorded answer takes the place of the
// call and goes through the checks a real answer does, whatever its uid.
func TestValidatingRecordedAnswers(t *testing.T) {
	tests := []struct {
		name   string
		review string // the recorded answer of "w.example.com"
		want   string // error text; "" allows
		code   int32
		// warnings and annotations the answer must leave on the request.
		warnings    []string
		annotations map[string]string
	}{
		{
			name:   "deny",
			review: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"recorded-1","allowed":false,"status":{"code":403,"message":"no pods on fridays"}}}`,
			want:   `admission webhook "w.example.com" denied the request: no pods on fridays`, code: 403,
		},
		{
			name:     "uid mismatch fixed",
			review:   `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"another-request","allowed":true,"warnings":["careful"],"auditAnnotations":{"reason":"ok"}}}`,
			warnings: []string{"careful"}, annotations: map[string]string{"w.example.com/reason": "ok"},
		},
		{
			name:   "no uid",
			review: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"allowed":true}}`,
		},
		{
			name:   "patch from a validating webhook",
			review: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"x","allowed":true,"patch":"W10=","patchType":"JSONPatch"}}`,
			want:   `received invalid webhook response: validating webhook may not return response.patch`, code: 500,
		},
		{
			name:   "wrong kind",
			review: `{"apiVersion":"admission.k8s.io/v1","kind":"Status","response":{"uid":"x","allowed":true}}`,
			want:   `expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1, Kind=Status`, code: 500,
		},
		{
			name:   "other version",
			review: `{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"uid":"x","allowed":true}}`,
			want:   `converting (v1beta1.AdmissionReview) to (v1.AdmissionReview): unknown conversion`, code: 500,
		},
		{
			name:   "no response",
			review: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`,
			want:   `received invalid webhook response: webhook response was absent`, code: 500,
		},
		{
			name:   "not json",
			review: `{not json`,
			want:   `couldn't get version/kind; json parse error`, code: 500,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			v := validatingAnswered(t, map[string]string{"w.example.com": tc.review}, vhook("w.example.com", countingServer(t, &calls)))
			ctx, st := withState()
			err := v.Validate(ctx, podAttrs(admission.Create, nil))
			if tc.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
			} else {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error = %v, want it to contain %q", err, tc.want)
				}
				var se *apierrors.StatusError
				if !errors.As(err, &se) || se.ErrStatus.Code != tc.code {
					t.Fatalf("error %#v, want code %d", err, tc.code)
				}
			}
			if n := calls.Load(); n != 0 {
				t.Errorf("the webhook with a recorded answer was called %d times", n)
			}
			if got := st.Warnings(); !slices.Equal(got, tc.warnings) {
				t.Errorf("warnings = %q, want %q", got, tc.warnings)
			}
			anns := st.Annotations()
			for k, want := range tc.annotations {
				if anns[k] != want {
					t.Errorf("annotation %s = %q, want %q", k, anns[k], want)
				}
			}
		})
	}
}

// TestRecordedAnswerOnlyForItsWebhook: a webhook the answers do not name
// is called, beside one answered from its recording.
func TestRecordedAnswerOnlyForItsWebhook(t *testing.T) {
	var recordedCalls, liveCalls atomic.Int32
	v := validatingAnswered(t,
		map[string]string{"recorded.example.com": `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"x","allowed":true}}`},
		vhook("recorded.example.com", countingServer(t, &recordedCalls)), vhook("live.example.com", countingServer(t, &liveCalls)))
	ctx, _ := withState()
	if err := v.Validate(ctx, podAttrs(admission.Create, nil)); err != nil {
		t.Fatal(err)
	}
	if r, l := recordedCalls.Load(), liveCalls.Load(); r != 0 || l != 1 {
		t.Errorf("calls: recorded webhook %d, live webhook %d; want 0 and 1", r, l)
	}
}

// TestMutatingRecordedPatch: a mutating webhook's recorded patch is
// applied, with the audit annotations of a real one.
func TestMutatingRecordedPatch(t *testing.T) {
	var calls atomic.Int32
	// The patch is [{"op":"add","path":"/metadata/labels","value":{"team":"a"}}].
	review := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"recorded-elsewhere","allowed":true,` +
		`"patchType":"JSONPatch","patch":"W3sib3AiOiJhZGQiLCJwYXRoIjoiL21ldGFkYXRhL2xhYmVscyIsInZhbHVlIjp7InRlYW0iOiJhIn19XQ=="}}`
	m, err := NewMutating(Options{Namespaces: namespaces, Answers: answers(map[string]string{"label.example.com": review})})
	if err != nil {
		t.Fatal(err)
	}
	m.Upsert(&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "cfg"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{mhook("label.example.com", countingServer(t, &calls))}})
	ctx, st := withState()
	a := podAttrs(admission.Create, nil)
	if err := m.Admit(ctx, a); err != nil {
		t.Fatal(err)
	}
	if pod := a.Object.(*corev1.Pod); pod.Labels["team"] != "a" {
		t.Fatalf("pod not patched: %+v", pod.ObjectMeta)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the webhook with a recorded answer was called %d times", n)
	}
	anns := st.Annotations()
	want := map[string]string{
		MutationAnnotationPrefix + "round_0_index_0": `{"configuration":"cfg","webhook":"label.example.com","mutated":true}`,
		PatchAnnotationPrefix + "round_0_index_0":    `{"configuration":"cfg","webhook":"label.example.com","patch":[{"op":"add","path":"/metadata/labels","value":{"team":"a"}}],"patchType":"JSONPatch"}`,
	}
	for k, v := range want {
		if anns[k] != v {
			t.Errorf("annotation %s = %s, want %s", k, anns[k], v)
		}
	}
}

// TestAnswerToSetsOnlyTheUID: the recorded review is kept as recorded but
// for response.uid.
func TestAnswerToSetsOnlyTheUID(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{name: "replaced", in: `{"kind":"AdmissionReview","response":{"uid":"old","allowed":true}}`, want: `{"kind":"AdmissionReview","response":{"allowed":true,"uid":"new"}}`},
		{name: "added", in: `{"response":{"allowed":false}}`, want: `{"response":{"allowed":false,"uid":"new"}}`},
		{name: "no response", in: `{"kind":"AdmissionReview"}`, want: `{"kind":"AdmissionReview"}`},
		{name: "null response", in: `{"response":null}`, want: `{"response":null}`},
		{name: "not json", in: `{not json`, want: `{not json`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(answerTo([]byte(tc.in), "new")); got != tc.want {
				t.Errorf("answerTo(%s) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}
