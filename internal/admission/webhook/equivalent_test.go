package webhook

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/policy/policytest"
)

// widgetRules match widgets of example.com in v1 only.
var widgetRules = []admissionregistrationv1.RuleWithOperations{{
	Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
	Rule:       admissionregistrationv1.Rule{APIGroups: []string{"example.com"}, APIVersions: []string{"v1"}, Resources: []string{"widgets"}},
}}

// seenRequest is what a webhook was sent.
type seenRequest struct {
	kind, resource, requestKind, requestResource, objectVersion string
	spec                                                        map[string]any
}

// recordingServer records the requests it is sent and answers each with
// patch (none when empty).
func recordingServer(t *testing.T, patch string) (*server, func() []seenRequest) {
	var mu sync.Mutex
	var seen []seenRequest
	s := newServer(t, func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		var obj unstructured.Unstructured
		_ = json.Unmarshal(req.Object.Raw, &obj.Object)
		spec, _, _ := unstructured.NestedMap(obj.Object, "spec")
		mu.Lock()
		seen = append(seen, seenRequest{
			kind: req.Kind.Version, resource: req.Resource.Version, requestKind: req.RequestKind.Version,
			requestResource: req.RequestResource.Version, objectVersion: obj.GetAPIVersion(), spec: spec,
		})
		mu.Unlock()
		resp := &admissionv1.AdmissionResponse{Allowed: true}
		if patch != "" {
			resp.Patch, resp.PatchType = []byte(patch), ptr(admissionv1.PatchTypeJSONPatch)
		}
		return resp
	})
	return s, func() []seenRequest {
		mu.Lock()
		defer mu.Unlock()
		return append([]seenRequest(nil), seen...)
	}
}

func widgetCreate(version string) *admission.Attributes {
	return policytest.WidgetRequest(admission.Create, &policytest.Widgets{},
		policytest.Widget(version, "prod", "w", map[string]any{"size": int64(1)}), nil)
}

// TestEquivalentValidating: as kube-apiserver, a webhook for v1 of a
// custom resource is sent a v2 request converted to v1, kind and resource
// in v1 and requestKind and requestResource in v2; with Exact it is not
// called.
func TestEquivalentValidating(t *testing.T) {
	s, seen := recordingServer(t, "")
	v := validating(t,
		vhook("equivalent.example.com", s, func(w *admissionregistrationv1.ValidatingWebhook) {
			w.Rules, w.MatchPolicy = widgetRules, ptr(admissionregistrationv1.Equivalent)
		}),
		vhook("exact.example.com", s, func(w *admissionregistrationv1.ValidatingWebhook) {
			w.Rules, w.MatchPolicy = widgetRules, ptr(admissionregistrationv1.Exact)
		}))
	a := widgetCreate("v2")
	if err := v.Validate(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	got := seen()
	if len(got) != 1 {
		t.Fatalf("webhooks called %d times, want once (Exact does not match v2): %+v", len(got), got)
	}
	want := seenRequest{kind: "v1", resource: "v1", requestKind: "v2", requestResource: "v2", objectVersion: "example.com/v1"}
	if g := got[0]; g.kind != want.kind || g.resource != want.resource || g.requestKind != want.requestKind || g.requestResource != want.requestResource || g.objectVersion != want.objectVersion {
		t.Errorf("sent %+v, want %+v", g, want)
	}
	if a.Object.GetObjectKind().GroupVersionKind().Version != "v2" {
		t.Error("the request's object was converted in place")
	}
	if err := v.Validate(context.Background(), widgetCreate("v1")); err != nil || len(seen()) != 3 {
		t.Fatalf("a v1 request: %v, %d calls, want both webhooks called", err, len(seen())-1)
	}
}

// TestEquivalentMutating: a mutating webhook's patch applies to the
// converted object, the result is converted back to the request's
// version, and the next webhook sees it.
func TestEquivalentMutating(t *testing.T) {
	first, _ := recordingServer(t, `[{"op":"add","path":"/spec/colour","value":"blue"}]`)
	second, seen := recordingServer(t, "")
	m := mutatingPlugin(t,
		mhook("first.example.com", first, func(w *admissionregistrationv1.MutatingWebhook) {
			w.Rules, w.MatchPolicy = widgetRules, ptr(admissionregistrationv1.Equivalent)
		}),
		mhook("second.example.com", second, func(w *admissionregistrationv1.MutatingWebhook) {
			w.Rules, w.MatchPolicy = widgetRules, ptr(admissionregistrationv1.Equivalent)
		}))
	a := widgetCreate("v2")
	if err := m.Admit(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	u := a.Object.(*unstructured.Unstructured)
	if u.GetAPIVersion() != "example.com/v2" {
		t.Errorf("mutated object in %s, want the request's v2", u.GetAPIVersion())
	}
	if colour, _, _ := unstructured.NestedString(u.Object, "spec", "colour"); colour != "blue" {
		t.Errorf("spec %v, want the patch applied", u.Object["spec"])
	}
	got := seen()
	if len(got) != 1 || got[0].objectVersion != "example.com/v1" || got[0].spec["colour"] != "blue" {
		t.Errorf("the second webhook saw %+v, want the patched object in v1", got)
	}
}
