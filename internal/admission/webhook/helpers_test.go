package webhook

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/request"
)

// server is a real HTTPS webhook on 127.0.0.1 answering with handle.
type server struct {
	*httptest.Server
	ca []byte
}

func newServer(t *testing.T, handle func(req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse) *server {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var review admissionv1.AdmissionReview
		if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		resp := handle(review.Request)
		if resp == nil {
			return
		}
		if resp.UID == "" {
			resp.UID = review.Request.UID
		}
		out := admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"}, Response: resp}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(&out)
	}))
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return &server{Server: srv, ca: ca}
}

// rawServer answers with whatever handler writes.
func rawServer(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	return &server{Server: srv, ca: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})}
}

func (s *server) clientConfig() admissionregistrationv1.WebhookClientConfig {
	u := s.URL + "/hook"
	return admissionregistrationv1.WebhookClientConfig{URL: &u, CABundle: s.ca}
}

func ptr[T any](v T) *T { return &v }

var podRules = []admissionregistrationv1.RuleWithOperations{{
	Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.OperationAll},
	Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}},
}}

func vhook(name string, s *server, mod ...func(*admissionregistrationv1.ValidatingWebhook)) admissionregistrationv1.ValidatingWebhook {
	w := admissionregistrationv1.ValidatingWebhook{
		Name: name, ClientConfig: s.clientConfig(), Rules: slices.Clone(podRules),
		SideEffects: ptr(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
		TimeoutSeconds: ptr(int32(2)),
	}
	for _, m := range mod {
		m(&w)
	}
	return w
}

func mhook(name string, s *server, mod ...func(*admissionregistrationv1.MutatingWebhook)) admissionregistrationv1.MutatingWebhook {
	w := admissionregistrationv1.MutatingWebhook{
		Name: name, ClientConfig: s.clientConfig(), Rules: slices.Clone(podRules),
		SideEffects: ptr(admissionregistrationv1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"},
		TimeoutSeconds: ptr(int32(2)),
	}
	for _, m := range mod {
		m(&w)
	}
	return w
}

func validating(t *testing.T, hooks ...admissionregistrationv1.ValidatingWebhook) *Validating {
	t.Helper()
	v, err := NewValidating(Options{Namespaces: namespaces})
	if err != nil {
		t.Fatal(err)
	}
	v.Upsert(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Webhooks: hooks})
	return v
}

func mutatingPlugin(t *testing.T, hooks ...admissionregistrationv1.MutatingWebhook) *Mutating {
	t.Helper()
	m, err := NewMutating(Options{Namespaces: namespaces})
	if err != nil {
		t.Fatal(err)
	}
	m.Upsert(&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "cfg"}, Webhooks: hooks})
	return m
}

func namespaces(_ context.Context, name string) (*corev1.Namespace, error) {
	switch name {
	case "prod":
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"env": "prod"}}}, nil
	case "dev":
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"env": "dev"}}}, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
}

func podAttrs(op admission.Operation, labels map[string]string) *admission.Attributes {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "prod", Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	a := &admission.Attributes{
		Kind:      schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
		Resource:  schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		Name:      "p",
		Namespace: "prod",
		Operation: op,
		UserInfo:  &user.DefaultInfo{Name: "alice", Groups: []string{"devs"}},
		Object:    pod,
		Options:   &metav1.CreateOptions{},
	}
	if op == admission.Delete {
		a.Object, a.OldObject = nil, pod
	}
	return a
}

func withState() (context.Context, *request.State) {
	st := &request.State{}
	return request.WithState(context.Background(), st), st
}

func allow(*admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	return &admissionv1.AdmissionResponse{Allowed: true}
}
