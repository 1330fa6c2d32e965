package podnodeselector

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

var pods = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

const config = `
podNodeSelectorPluginConfig:
  clusterDefaultNodeSelector: env=dev
  restricted: env=prod,tier=web
`

func namespaces(_ context.Context, name string) (*corev1.Namespace, error) {
	ann := map[string]map[string]string{
		"annotated":  {NamespaceAnnotation: "env=prod"},
		"optout":     {NamespaceAnnotation: ""},
		"malformed":  {NamespaceAnnotation: "env"},
		"restricted": {NamespaceAnnotation: "env=prod"},
		"plain":      nil,
	}
	a, ok := ann[name]
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
	}
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: a}}, nil
}

func pod(sel map[string]string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{NodeSelector: sel}}
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

func TestAdmit(t *testing.T) {
	tests := []struct {
		name    string
		a       *admission.Attributes
		want    runtime.Object
		wantErr *metav1.Status
	}{
		{
			name: "cluster default merged",
			a:    &admission.Attributes{Resource: pods, Namespace: "plain", Operation: admission.Create, Object: pod(map[string]string{"disk": "ssd"})},
			want: pod(map[string]string{"disk": "ssd", "env": "dev"}),
		},
		{
			name: "annotation instead of the default",
			a:    &admission.Attributes{Resource: pods, Namespace: "annotated", Operation: admission.Create, Object: pod(nil)},
			want: pod(map[string]string{"env": "prod"}),
		},
		{
			name: "empty annotation opts out",
			a:    &admission.Attributes{Resource: pods, Namespace: "optout", Operation: admission.Create, Object: pod(nil)},
			want: pod(map[string]string{}),
		},
		{
			name: "conflict",
			a:    &admission.Attributes{Resource: pods, Namespace: "annotated", Operation: admission.Create, Object: pod(map[string]string{"env": "dev"})},
			want: pod(map[string]string{"env": "dev"}),
			wantErr: &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden,
				Message: `pods "p" is forbidden: pod node label selector conflicts with its namespace node label selector`},
		},
		{
			name: "whitelisted",
			a:    &admission.Attributes{Resource: pods, Namespace: "restricted", Operation: admission.Create, Object: pod(map[string]string{"tier": "web"})},
			want: pod(map[string]string{"env": "prod", "tier": "web"}),
		},
		{
			name: "outside the whitelist",
			a:    &admission.Attributes{Resource: pods, Namespace: "restricted", Operation: admission.Create, Object: pod(map[string]string{"tier": "db"})},
			want: pod(map[string]string{"env": "prod", "tier": "db"}),
			wantErr: &metav1.Status{Code: 403, Reason: metav1.StatusReasonForbidden,
				Message: `pods "p" is forbidden: pod node label selector labels conflict with its namespace whitelist`},
		},
		{
			name: "malformed annotation",
			a:    &admission.Attributes{Resource: pods, Namespace: "malformed", Operation: admission.Create, Object: pod(nil)},
			want: pod(nil),
			wantErr: &metav1.Status{Code: 500,
				Message: `invalid selector: [env]`},
		},
		{
			name: "missing namespace",
			a:    &admission.Attributes{Resource: pods, Namespace: "gone", Operation: admission.Create, Object: pod(nil)},
			want: pod(nil),
			wantErr: &metav1.Status{Code: 500, Reason: metav1.StatusReasonInternalError,
				Message: `Internal error occurred: namespace gone does not exist`},
		},
		{
			name: "update is not the plugin's",
			a:    &admission.Attributes{Resource: pods, Namespace: "annotated", Operation: admission.Update, Object: pod(map[string]string{"env": "dev"})},
			want: pod(map[string]string{"env": "dev"}),
		},
		{
			name: "binding is not the plugin's",
			a:    &admission.Attributes{Resource: pods, Subresource: "binding", Namespace: "annotated", Operation: admission.Create, Object: &corev1.Binding{}},
			want: &corev1.Binding{},
		},
	}
	p, err := New([]byte(config), namespaces)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.Admit(context.Background(), tt.a)
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
		name      string
		namespace string
		selector  map[string]string
		want      string
	}{
		{name: "default not required in validation", namespace: "plain", selector: nil},
		{name: "conflict after a webhook", namespace: "annotated", selector: map[string]string{"env": "dev"},
			want: `pods "p" is forbidden: pod node label selector conflicts with its namespace node label selector`},
		{name: "whitelist after a webhook", namespace: "restricted", selector: map[string]string{"env": "prod", "zone": "a"},
			want: `pods "p" is forbidden: pod node label selector labels conflict with its namespace whitelist`},
	}
	p, err := New([]byte(config), namespaces)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := p.Validate(context.Background(), &admission.Attributes{Resource: pods, Namespace: tt.namespace, Operation: admission.Create, Object: pod(tt.selector)})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewConfig(t *testing.T) {
	tests := []struct {
		name    string
		config  string
		want    selectors
		wantErr string
	}{
		{name: "none", config: "", want: selectors{clusterDefault: map[string]string{}, whitelists: map[string]labels.Set{}}},
		{
			name:   "YAML",
			config: config,
			want: selectors{clusterDefault: map[string]string{"env": "dev"},
				whitelists: map[string]labels.Set{"restricted": {"env": "prod", "tier": "web"}}},
		},
		{
			name:   "JSON",
			config: `{"podNodeSelectorPluginConfig": {"ns": "a=b"}}`,
			want:   selectors{clusterDefault: map[string]string{}, whitelists: map[string]labels.Set{"ns": {"a": "b"}}},
		},
		{
			name:    "unknown field",
			config:  "podNodeSelectorPluginConfig: {}\nextra: 1\n",
			wantErr: `PodNodeSelector configuration: error unmarshaling JSON: while decoding JSON: json: unknown field "extra"`,
		},
		{
			name:    "malformed selectors, all reported",
			config:  "podNodeSelectorPluginConfig:\n  clusterDefaultNodeSelector: a\n  ns: b,c=d\n",
			wantErr: "PodNodeSelector configuration: podNodeSelectorPluginConfig[clusterDefaultNodeSelector]: invalid selector: [a]\nPodNodeSelector configuration: podNodeSelectorPluginConfig[ns]: invalid selector: [b]",
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
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, p.sel, cmp.AllowUnexported(selectors{})); diff != "" {
				t.Errorf("selectors (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzNew(f *testing.F) {
	f.Add([]byte(config))
	f.Add([]byte(`{"podNodeSelectorPluginConfig": {"ns": "a=b,c==d"}}`))
	f.Add([]byte("podNodeSelectorPluginConfig: [1]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := New(data, namespaces)
		if err == nil && p == nil {
			t.Fatal("no plugin and no error")
		}
	})
}
