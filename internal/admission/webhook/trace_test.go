package webhook

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/request"
)

// tracedPart is what the tests check of a part.
type tracedPart struct {
	Rule, Phase, Outcome, Detail string
	Timed                        bool
}

// traceParts runs a through a chain of the one plugin, as the server
// does, and returns the parts of its steps (a mutating plugin's second
// one is its reinvocation round, where no webhook here is reinvoked).
func traceParts(t *testing.T, plugin any, a *admission.Attributes) []tracedPart {
	t.Helper()
	st := &request.State{Trace: true}
	ctx := request.WithState(context.Background(), st)
	var chain admission.Chain
	switch p := plugin.(type) {
	case admission.Validator:
		chain = admission.Chain{Validators: []admission.Validator{p}, ValidatorNames: []string{"ValidatingAdmissionWebhook"}}
		_ = chain.Validate(ctx, a)
	case admission.Mutator:
		chain = admission.Chain{Mutators: []admission.Mutator{p}, MutatorNames: []string{"MutatingAdmissionWebhook"}}
		_ = chain.Admit(ctx, a)
	}
	var out []tracedPart
	for _, s := range st.Steps() {
		for _, p := range s.Parts {
			out = append(out, tracedPart{Rule: p.Rule, Phase: p.Phase, Outcome: p.Outcome, Detail: p.Detail, Timed: p.Micros > 0})
		}
	}
	return out
}

func TestValidatingTraceParts(t *testing.T) {
	ok := newServer(t, allow)
	deny := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Code: 403, Message: "no pods on fridays"}}
	})
	serverErr := rawServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(500)
		_, _ = w.Write([]byte("boom"))
	})
	ignore := func(w *admissionregistrationv1.ValidatingWebhook) {
		w.FailurePolicy = ptr(admissionregistrationv1.Ignore)
	}
	configMapsOnly := func(w *admissionregistrationv1.ValidatingWebhook) { w.Rules[0].Resources = []string{"configmaps"} }
	const (
		validate = request.PhaseValidate
		rule     = "webhook w.example.com (configuration cfg)"
		boom     = `failed calling webhook "w.example.com": failed to call webhook: an error on the server ("boom") has prevented the request from succeeding`
	)
	tests := []struct {
		name     string
		hook     admissionregistrationv1.ValidatingWebhook
		recorded string
		want     []tracedPart
	}{
		{name: "admitted", hook: vhook("w.example.com", ok),
			want: []tracedPart{{Rule: rule, Phase: validate, Outcome: "admitted", Timed: true}}},
		{name: "denied", hook: vhook("w.example.com", deny),
			want: []tracedPart{{Rule: rule, Phase: validate, Outcome: "denied", Detail: `admission webhook "w.example.com" denied the request: no pods on fridays`, Timed: true}}},
		{name: "error", hook: vhook("w.example.com", serverErr),
			want: []tracedPart{{Rule: rule, Phase: validate, Outcome: "error", Detail: "Internal error occurred: " + boom, Timed: true}}},
		{name: "error ignored", hook: vhook("w.example.com", serverErr, ignore),
			want: []tracedPart{{Rule: rule, Phase: validate, Outcome: "error (failurePolicy Ignore)", Detail: boom, Timed: true}}},
		{name: "recorded allow", hook: vhook("w.example.com", serverErr),
			recorded: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"x","allowed":true}}`,
			want:     []tracedPart{{Rule: rule, Phase: validate, Outcome: "admitted", Detail: "recorded answer", Timed: true}}},
		{name: "recorded deny", hook: vhook("w.example.com", ok),
			recorded: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"x","allowed":false,"status":{"message":"recorded no"}}}`,
			want:     []tracedPart{{Rule: rule, Phase: validate, Outcome: "denied", Detail: `recorded answer: admission webhook "w.example.com" denied the request: recorded no`, Timed: true}}},
		{name: "not matching", hook: vhook("w.example.com", ok, configMapsOnly)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reviews := map[string]string{}
			if tc.recorded != "" {
				reviews["w.example.com"] = tc.recorded
			}
			got := traceParts(t, validatingAnswered(t, reviews, tc.hook), podAttrs(admission.Create, nil))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidatingTracePartsInWebhookOrder: validating webhooks are called
// in parallel; their parts are in the webhooks' order, not in the order
// they answered nor by name. Here the first webhook answers only once
// the second, answered from a recording (no network), has been asked.
func TestValidatingTracePartsInWebhookOrder(t *testing.T) {
	asked := make(chan struct{})
	first := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		<-asked
		return &admissionv1.AdmissionResponse{Allowed: true}
	})
	v, err := NewValidating(Options{Namespaces: namespaces, Answers: func(name string) ([]byte, bool) {
		if name != "a.example.com" {
			return nil, false
		}
		close(asked)
		return []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"allowed":true}}`), true
	}})
	if err != nil {
		t.Fatal(err)
	}
	v.Upsert(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "cfg"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{vhook("z.example.com", first), vhook("a.example.com", first)}})
	got := traceParts(t, v, podAttrs(admission.Create, nil))
	var rules []string
	for _, p := range got {
		rules = append(rules, p.Rule)
	}
	want := []string{"webhook z.example.com (configuration cfg)", "webhook a.example.com (configuration cfg)"}
	if diff := cmp.Diff(want, rules); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
}

func TestMutatingTraceParts(t *testing.T) {
	label := newServer(t, patchResponse(`[{"op":"add","path":"/metadata/labels","value":{"team":"a"}}]`))
	ok := newServer(t, allow)
	deny := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Message: "no"}}
	})
	const mutate = request.PhaseMutate
	// The patch is [{"op":"add","path":"/metadata/labels","value":{"team":"a"}}].
	recordedPatch := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","response":{"uid":"x","allowed":true,` +
		`"patchType":"JSONPatch","patch":"W3sib3AiOiJhZGQiLCJwYXRoIjoiL21ldGFkYXRhL2xhYmVscyIsInZhbHVlIjp7InRlYW0iOiJhIn19XQ=="}}`
	tests := []struct {
		name     string
		hooks    []admissionregistrationv1.MutatingWebhook
		recorded map[string]string
		want     []tracedPart
	}{
		{name: "mutated, then admitted", hooks: []admissionregistrationv1.MutatingWebhook{mhook("label.example.com", label), mhook("ok.example.com", ok)},
			want: []tracedPart{
				{Rule: "webhook label.example.com (configuration cfg)", Phase: mutate, Outcome: "mutated", Timed: true},
				{Rule: "webhook ok.example.com (configuration cfg)", Phase: mutate, Outcome: "admitted", Timed: true},
			}},
		{name: "recorded patch", hooks: []admissionregistrationv1.MutatingWebhook{mhook("label.example.com", ok)},
			recorded: map[string]string{"label.example.com": recordedPatch},
			want:     []tracedPart{{Rule: "webhook label.example.com (configuration cfg)", Phase: mutate, Outcome: "mutated", Detail: "recorded answer", Timed: true}}},
		{name: "denied stops", hooks: []admissionregistrationv1.MutatingWebhook{mhook("deny.example.com", deny), mhook("ok.example.com", ok)},
			want: []tracedPart{{Rule: "webhook deny.example.com (configuration cfg)", Phase: mutate, Outcome: "denied", Detail: `admission webhook "deny.example.com" denied the request: no`, Timed: true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := NewMutating(Options{Namespaces: namespaces, Answers: answers(tc.recorded)})
			if err != nil {
				t.Fatal(err)
			}
			m.Upsert(&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Webhooks: tc.hooks})
			got := traceParts(t, m, podAttrs(admission.Create, nil))
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("parts (-want +got):\n%s", diff)
			}
		})
	}
}
