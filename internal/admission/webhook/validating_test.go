package webhook

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

func TestValidatingResponses(t *testing.T) {
	deny := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Code: 403, Message: "no pods on fridays"}}
	})
	denyBare := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Allowed: false}
	})
	ok := newServer(t, allow)
	badUID := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{UID: "nope", Allowed: true}
	})
	patching := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		pt := admissionv1.PatchTypeJSONPatch
		return &admissionv1.AdmissionResponse{Allowed: true, Patch: []byte(`[]`), PatchType: &pt}
	})
	garbage := rawServer(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("{not json")) })
	wrongVersion := rawServer(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"allowed":true}}`))
	})
	serverErr := rawServer(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(500)
		_, _ = w.Write([]byte("boom"))
	})
	slow := rawServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
	})
	closer := rawServer(t, func(w http.ResponseWriter, _ *http.Request) {
		hj, ok := w.(http.Hijacker)
		if !ok {
			return
		}
		c, _, _ := hj.Hijack()
		_ = c.Close()
	})
	ignore := func(w *admissionregistrationv1.ValidatingWebhook) {
		w.FailurePolicy = ptr(admissionregistrationv1.Ignore)
	}
	oneSecond := func(w *admissionregistrationv1.ValidatingWebhook) { w.TimeoutSeconds = ptr(int32(1)) }

	tests := []struct {
		name     string
		hook     admissionregistrationv1.ValidatingWebhook
		want     string // error text; "" allows
		code     int32
		failOpen bool
	}{
		{name: "allow", hook: vhook("ok.example.com", ok)},
		{name: "deny", hook: vhook("deny.example.com", deny), want: `admission webhook "deny.example.com" denied the request: no pods on fridays`, code: 403},
		{name: "deny without explanation", hook: vhook("deny.example.com", denyBare), want: `admission webhook "deny.example.com" denied the request without explanation`, code: 400},
		{name: "uid mismatch", hook: vhook("uid.example.com", badUID), want: `Internal error occurred: failed calling webhook "uid.example.com": received invalid webhook response: expected response.uid=`, code: 500},
		{name: "validating patch", hook: vhook("p.example.com", patching), want: `received invalid webhook response: validating webhook may not return response.patch`, code: 500},
		{name: "garbage", hook: vhook("g.example.com", garbage), want: `failed calling webhook "g.example.com": failed to call webhook: couldn't get version/kind; json parse error: invalid character 'n' looking for beginning of object key string`, code: 500},
		{name: "wrong version", hook: vhook("v.example.com", wrongVersion), want: `failed to call webhook: converting (v1beta1.AdmissionReview) to (v1.AdmissionReview): unknown conversion`, code: 500},
		{name: "server error", hook: vhook("e.example.com", serverErr), want: `failed calling webhook "e.example.com": failed to call webhook: an error on the server ("boom") has prevented the request from succeeding`, code: 500},
		{name: "timeout", hook: vhook("slow.example.com", slow, oneSecond), want: `failed calling webhook "slow.example.com": failed to call webhook: Post "` + slow.URL + `/hook?timeout=1s": context deadline exceeded`, code: 500},
		{name: "connection closed", hook: vhook("close.example.com", closer), want: `failed calling webhook "close.example.com": failed to call webhook: Post`, code: 500},
		{name: "timeout ignored", hook: vhook("slow.example.com", slow, oneSecond, ignore), failOpen: true},
		{name: "garbage ignored", hook: vhook("g.example.com", garbage, ignore), failOpen: true},
		{name: "deny despite ignore", hook: vhook("deny.example.com", deny, ignore), want: "denied the request: no pods on fridays", code: 403},
		{name: "bad caBundle", hook: vhook("ca.example.com", ok, func(w *admissionregistrationv1.ValidatingWebhook) { w.ClientConfig.CABundle = []byte("junk") }), want: "caBundle holds no PEM certificate", code: 500},
		{name: "system roots", hook: vhook("roots.example.com", ok, func(w *admissionregistrationv1.ValidatingWebhook) { w.ClientConfig.CABundle = nil }), want: "tls: failed to verify certificate", code: 500},
		{name: "http url", hook: vhook("http.example.com", ok, func(w *admissionregistrationv1.ValidatingWebhook) { w.ClientConfig.URL = ptr("http://127.0.0.1:1/") }), want: "url scheme must be https", code: 500},
		{name: "service without resolver", hook: vhook("svc.example.com", ok, func(w *admissionregistrationv1.ValidatingWebhook) {
			w.ClientConfig.URL = nil
			w.ClientConfig.Service = &admissionregistrationv1.ServiceReference{Namespace: "ns", Name: "svc"}
		}), want: ErrNoServiceResolver.Error(), code: 500},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := validating(t, tc.hook)
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
			key := ValidatingFailedOpenPrefix + "round_0_index_0"
			if got := st.Annotations()[key]; (got == tc.hook.Name) != tc.failOpen {
				t.Errorf("failed-open annotation = %q, want set: %v", got, tc.failOpen)
			}
		})
	}
}

func TestValidatingRequestFields(t *testing.T) {
	var got atomic.Pointer[admissionv1.AdmissionRequest]
	s := newServer(t, func(r *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		got.Store(r)
		return &admissionv1.AdmissionResponse{Allowed: true, Warnings: []string{"careful"}, AuditAnnotations: map[string]string{"k": "v"}}
	})
	v := validating(t, vhook("fields.example.com", s))
	ctx, st := withState()
	a := podAttrs(admission.Create, map[string]string{"app": "x"})
	a.DryRun = true
	if err := v.Validate(ctx, a); err != nil {
		t.Fatal(err)
	}
	r := got.Load()
	if r.UID == "" || r.Kind.Kind != "Pod" || r.Resource.Resource != "pods" || r.Name != "p" || r.Namespace != "prod" ||
		r.Operation != admissionv1.Create || r.UserInfo.Username != "alice" || r.DryRun == nil || !*r.DryRun ||
		r.RequestKind == nil || r.RequestKind.Kind != "Pod" || r.RequestResource == nil || r.RequestResource.Resource != "pods" {
		t.Fatalf("request fields: %+v", r)
	}
	if !strings.Contains(string(r.Object.Raw), `"kind":"Pod"`) || !strings.Contains(string(r.Object.Raw), `"app":"x"`) || r.OldObject.Raw != nil {
		t.Errorf("object = %s, oldObject = %s", r.Object.Raw, r.OldObject.Raw)
	}
	if !strings.Contains(string(r.Options.Raw), `"kind":"CreateOptions"`) {
		t.Errorf("options = %s", r.Options.Raw)
	}
	if w := st.Warnings(); len(w) != 1 || w[0] != "careful" {
		t.Errorf("warnings = %v", w)
	}
	if an := st.Annotations()["fields.example.com/k"]; an != "v" {
		t.Errorf("audit annotations = %v", st.Annotations())
	}
}

// TestValidatingParallel calls five webhooks that each answer only once
// all five have been called: called one after the other, the first would
// wait for the others in vain and deny.
func TestValidatingParallel(t *testing.T) {
	const n = 5
	var arrived atomic.Int32
	all := make(chan struct{})
	s := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		if arrived.Add(1) == n {
			close(all)
		}
		select {
		case <-all:
			return &admissionv1.AdmissionResponse{Allowed: true}
		case <-time.After(20 * time.Second):
			return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{
				Message: fmt.Sprintf("not parallel: %d of %d webhooks called at once", arrived.Load(), n),
			}}
		}
	})
	var hooks []admissionregistrationv1.ValidatingWebhook
	for i := range n {
		hooks = append(hooks, vhook(fmt.Sprintf("h%d.example.com", i), s, func(w *admissionregistrationv1.ValidatingWebhook) {
			w.TimeoutSeconds = ptr(int32(30))
		}))
	}
	v := validating(t, hooks...)
	if err := v.Validate(t.Context(), podAttrs(admission.Create, nil)); err != nil {
		t.Fatal(err)
	}
	if got := arrived.Load(); got != n {
		t.Errorf("%d webhooks called, want %d", got, n)
	}
}

func TestValidatingMatching(t *testing.T) {
	var calls atomic.Int32
	s := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		calls.Add(1)
		return &admissionv1.AdmissionResponse{Allowed: true}
	})
	cond := func(expr string) func(*admissionregistrationv1.ValidatingWebhook) {
		return func(w *admissionregistrationv1.ValidatingWebhook) {
			w.MatchConditions = []admissionregistrationv1.MatchCondition{{Name: "c", Expression: expr}}
		}
	}
	tests := []struct {
		name   string
		mod    func(*admissionregistrationv1.ValidatingWebhook)
		attrs  func() *admission.Attributes
		called bool
		errHas string
	}{
		{name: "namespace selector matches", called: true, mod: func(w *admissionregistrationv1.ValidatingWebhook) {
			w.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
		}},
		{name: "namespace selector misses", mod: func(w *admissionregistrationv1.ValidatingWebhook) {
			w.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}}
		}},
		{name: "object selector matches", called: true, mod: func(w *admissionregistrationv1.ValidatingWebhook) {
			w.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
		}},
		{name: "object selector misses label-less object", mod: func(w *admissionregistrationv1.ValidatingWebhook) {
			w.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
		}, attrs: func() *admission.Attributes { return podAttrs(admission.Create, nil) }},
		{name: "operation misses", mod: func(w *admissionregistrationv1.ValidatingWebhook) {
			w.Rules = []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{"UPDATE"},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*"}}}}
		}},
		{name: "subresource needs pods/*", mod: nil, attrs: func() *admission.Attributes {
			a := podAttrs(admission.Create, nil)
			a.Subresource = "status"
			return a
		}},
		{name: "*/status matches status", called: true, mod: func(w *admissionregistrationv1.ValidatingWebhook) {
			w.Rules = []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{"*"},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/status"}}}}
		}, attrs: func() *admission.Attributes {
			a := podAttrs(admission.Update, nil)
			a.Subresource = "status"
			return a
		}},
		{name: "cluster scope misses namespaced", mod: func(w *admissionregistrationv1.ValidatingWebhook) {
			w.Rules[0].Scope = ptr(admissionregistrationv1.ClusterScope)
		}},
		{name: "match condition true", called: true, mod: cond("object.metadata.name == 'p'")},
		{name: "match condition false", mod: cond("request.userInfo.username == 'bob'")},
		{name: "match condition error fails closed", mod: cond("object.metadata.nope == 'x'"), errHas: "forbidden"},
		{name: "match condition error ignored", mod: func(w *admissionregistrationv1.ValidatingWebhook) {
			cond("object.metadata.nope == 'x'")(w)
			w.FailurePolicy = ptr(admissionregistrationv1.Ignore)
		}},
		{name: "webhook configurations exempt", attrs: func() *admission.Attributes {
			return &admission.Attributes{Kind: admissionregistrationv1.SchemeGroupVersion.WithKind("ValidatingWebhookConfiguration"),
				Resource: admissionregistrationv1.SchemeGroupVersion.WithResource("validatingwebhookconfigurations"), Operation: admission.Create}
		}, mod: func(w *admissionregistrationv1.ValidatingWebhook) {
			w.Rules = []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{"*"},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"*"}, APIVersions: []string{"*"}, Resources: []string{"*/*"}}}}
		}},
		{name: "dry run refused with side effects", mod: func(w *admissionregistrationv1.ValidatingWebhook) {
			w.SideEffects = ptr(admissionregistrationv1.SideEffectClassSome)
		}, attrs: func() *admission.Attributes {
			a := podAttrs(admission.Create, nil)
			a.DryRun = true
			return a
		}, errHas: `admission webhook "hook.example.com" does not support dry run`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls.Store(0)
			h := vhook("hook.example.com", s)
			if tc.mod != nil {
				tc.mod(&h)
			}
			v := validating(t, h)
			a := podAttrs(admission.Create, map[string]string{"app": "web"})
			if tc.attrs != nil {
				a = tc.attrs()
			}
			err := v.Validate(t.Context(), a)
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error = %v, want %q", err, tc.errHas)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := calls.Load() > 0; got != tc.called {
				t.Errorf("called = %v, want %v", got, tc.called)
			}
		})
	}
}

var _ = schema.GroupVersionResource{}
