package webhook

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
)

func TestMetrics(t *testing.T) {
	deny := newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		return &admissionv1.AdmissionResponse{Allowed: false, Result: &metav1.Status{Code: 700, Message: "no"}}
	})
	reg := prometheus.NewRegistry()
	v, err := NewValidating(Options{Namespaces: namespaces, Metrics: reg})
	if err != nil {
		t.Fatal(err)
	}
	v.Upsert(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "cfg"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{vhook("deny.example.com", deny)}})
	if err := v.Validate(t.Context(), podAttrs(admission.Create, nil)); err == nil {
		t.Fatal("not denied")
	}
	want := `
# HELP apiserver_admission_webhook_rejection_count [ALPHA] Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation.
# TYPE apiserver_admission_webhook_rejection_count counter
apiserver_admission_webhook_rejection_count{error_type="no_error",name="deny.example.com",operation="CREATE",rejection_code="600",type="validating"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "apiserver_admission_webhook_rejection_count"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(reg, "apiserver_admission_webhook_admission_duration_seconds"); n != 1 {
		t.Errorf("duration series = %d", n)
	}
	if n := testutil.CollectAndCount(reg, "apiserver_admission_webhook_request_total"); n != 1 {
		t.Errorf("request series = %d", n)
	}
	// A second plugin shares the registry.
	if _, err := NewMutating(Options{Metrics: reg}); err != nil {
		t.Fatal(err)
	}
}

func TestServiceClientConfig(t *testing.T) {
	s := newServer(t, allow)
	host := strings.TrimPrefix(s.URL, "https://")
	var mu sync.Mutex
	var asked []string
	resolver := ServiceResolverFunc(func(_ context.Context, ns, name string, port int32) (*url.URL, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, ns+"/"+name+":"+strconv.Itoa(int(port)))
		return &url.URL{Scheme: "https", Host: host}, nil
	})
	v, err := NewValidating(Options{Namespaces: namespaces, Services: resolver})
	if err != nil {
		t.Fatal(err)
	}
	h := vhook("svc.example.com", s)
	h.ClientConfig.URL = nil
	h.ClientConfig.Service = &admissionregistrationv1.ServiceReference{Namespace: "hooks", Name: "svc", Path: ptr("/hook")}
	v.Upsert(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Webhooks: []admissionregistrationv1.ValidatingWebhook{h}})
	// The httptest certificate is for example.com, not svc.hooks.svc: the
	// server name check must fail, proving it is svc-based.
	err = v.Validate(t.Context(), podAttrs(admission.Create, nil))
	if err == nil || !strings.Contains(err.Error(), "svc.hooks.svc") {
		t.Fatalf("error = %v, want a certificate error naming svc.hooks.svc", err)
	}
	if len(asked) != 1 || asked[0] != "hooks/svc:443" {
		t.Errorf("resolver asked %v, want hooks/svc:443", asked)
	}
}

func TestV1beta1(t *testing.T) {
	s := rawServer(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","response":{"allowed":true,"patch":"W3sib3AiOiJhZGQiLCJwYXRoIjoiL21ldGFkYXRhL2xhYmVscyIsInZhbHVlIjp7ImIiOiIxIn19XQ=="}}`))
	})
	h := mhook("beta.example.com", s)
	h.AdmissionReviewVersions = []string{"v2", "v1beta1"}
	m := mutatingPlugin(t, h)
	a := podAttrs(admission.Create, nil)
	if err := m.Admit(t.Context(), a); err != nil {
		t.Fatal(err)
	}
	if a.Object.(interface{ GetLabels() map[string]string }).GetLabels()["b"] != "1" {
		t.Fatal("v1beta1 patch not applied")
	}
	h.AdmissionReviewVersions = []string{"v2"}
	m = mutatingPlugin(t, h)
	err := m.Admit(t.Context(), podAttrs(admission.Create, nil))
	if err == nil || !strings.Contains(err.Error(), "webhook does not accept known AdmissionReview versions (v1, v1beta1)") {
		t.Fatalf("error = %v", err)
	}
}

func TestOrderAndDelete(t *testing.T) {
	var mu sync.Mutex
	var order []string
	rec := func(name string) *server {
		return newServer(t, func(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			return &admissionv1.AdmissionResponse{Allowed: true}
		})
	}
	m, err := NewMutating(Options{Namespaces: namespaces})
	if err != nil {
		t.Fatal(err)
	}
	b := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "b"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{mhook("b1", rec("b1")), mhook("b2", rec("b2"))}}
	a := &admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "a"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{mhook("a1", rec("a1"))}}
	m.Upsert(b)
	m.Upsert(a)
	if err := m.Admit(t.Context(), podAttrs(admission.Create, nil)); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, ","); got != "a1,b1,b2" {
		t.Fatalf("order = %s", got)
	}
	order = nil
	m.Delete(a)
	if err := m.Admit(t.Context(), podAttrs(admission.Create, nil)); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(order, ","); got != "b1,b2" {
		t.Fatalf("order after delete = %s", got)
	}
}
