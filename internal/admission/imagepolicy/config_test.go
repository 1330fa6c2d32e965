package imagepolicy

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    WebhookConfig
		wantErr string
	}{
		{
			name: "yaml",
			data: "imagePolicy:\n  kubeConfigFile: /k\n  allowTTL: 50\n  denyTTL: 40\n  retryBackoff: 600\n  defaultAllow: true\n",
			want: WebhookConfig{KubeConfigFile: "/k", AllowTTL: 50 * time.Second, DenyTTL: 40 * time.Second, RetryBackoff: 600 * time.Millisecond, DefaultAllow: true},
		},
		{
			name: "json",
			data: `{"imagePolicy":{"kubeConfigFile":"/k","allowTTL":1,"denyTTL":1800,"retryBackoff":300000}}`,
			want: WebhookConfig{KubeConfigFile: "/k", AllowTTL: time.Second, DenyTTL: 30 * time.Minute, RetryBackoff: 5 * time.Minute},
		},
		{
			name: "defaults",
			data: "imagePolicy:\n  kubeConfigFile: /k\n",
			want: WebhookConfig{KubeConfigFile: "/k", AllowTTL: 5 * time.Minute, DenyTTL: 30 * time.Second, RetryBackoff: 500 * time.Millisecond},
		},
		{
			name: "disabled",
			data: "imagePolicy:\n  kubeConfigFile: /k\n  allowTTL: -1\n  denyTTL: -1\n  retryBackoff: -1\n",
			want: WebhookConfig{KubeConfigFile: "/k"},
		},
		{
			name: "field names in another case, as kube-apiserver's decoder reads them",
			data: "ImagePolicy:\n  KubeConfigFile: /k\n  allowttl: 2\n",
			want: WebhookConfig{KubeConfigFile: "/k", AllowTTL: 2 * time.Second, DenyTTL: 30 * time.Second, RetryBackoff: 500 * time.Millisecond},
		},
		{
			name: "apiVersion and kind are ignored",
			data: "apiVersion: imagepolicy.k8s.io/v1alpha1\nkind: ImagePolicyConfig\nimagePolicy:\n  kubeConfigFile: /k\n",
			want: WebhookConfig{KubeConfigFile: "/k", AllowTTL: 5 * time.Minute, DenyTTL: 30 * time.Second, RetryBackoff: 500 * time.Millisecond},
		},
		{
			name: "a legacy admission configuration file with PodNodeSelector's stanza",
			data: "imagePolicy:\n  kubeConfigFile: /k\npodNodeSelectorPluginConfig:\n  clusterDefaultNodeSelector: a=b\n",
			want: WebhookConfig{KubeConfigFile: "/k", AllowTTL: 5 * time.Minute, DenyTTL: 30 * time.Second, RetryBackoff: 500 * time.Millisecond},
		},
		{
			name:    "empty",
			data:    "\n",
			wantErr: "no config specified",
		},
		{
			name:    "unknown field",
			data:    "imagePolicy:\n  kubeConfigFile: /k\n  allowTtl2: 5\n",
			wantErr: `ImagePolicyWebhook configuration: error unmarshaling JSON: while decoding JSON: json: unknown field "allowTtl2"`,
		},
		{
			name:    "duplicate field",
			data:    "imagePolicy:\n  kubeConfigFile: /k\n  kubeConfigFile: /j\n",
			wantErr: `ImagePolicyWebhook configuration: error converting YAML to JSON: yaml: unmarshal errors:` + "\n" + `  line 3: key "kubeConfigFile" already set in map`,
		},
		{
			name:    "a TTL that is not a whole number",
			data:    "imagePolicy:\n  allowTTL: 1.5\n",
			wantErr: `ImagePolicyWebhook configuration: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal number 1.5 into Go struct field WebhookConfig.imagePolicy.allowTTL of type time.Duration`,
		},
		{
			name:    "backoff too long",
			data:    "imagePolicy:\n  retryBackoff: 300001\n  allowTTL: 1801\n",
			wantErr: `ImagePolicyWebhook configuration: valid value is between 1ns and 5m0s, got 5m0.001s`,
		},
		{
			name:    "negative backoff",
			data:    "imagePolicy:\n  retryBackoff: -2\n",
			wantErr: `ImagePolicyWebhook configuration: valid value is between 1ns and 5m0s, got -2ms`,
		},
		{
			name:    "allow TTL too long",
			data:    "imagePolicy:\n  allowTTL: 1801\n",
			wantErr: `ImagePolicyWebhook configuration: valid value is between 1s and 30m0s, got 30m1s`,
		},
		{
			name:    "deny TTL too short",
			data:    "imagePolicy:\n  denyTTL: -5\n",
			wantErr: `ImagePolicyWebhook configuration: valid value is between 1s and 30m0s, got -5s`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Decode([]byte(tc.data))
			if err == nil {
				err = cfg.ImagePolicy.Normalize()
			}
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("got %+v, want error %q", cfg.ImagePolicy, tc.wantErr)
				}
				if diff := cmp.Diff(tc.wantErr, err.Error()); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				if !errors.Is(err, ErrConfig) && !errors.Is(err, ErrNoConfig) {
					t.Errorf("error %v is neither ErrConfig nor ErrNoConfig", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, cfg.ImagePolicy); diff != "" {
				t.Errorf("configuration (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	dir := t.TempDir()
	noServer := filepath.Join(dir, "noserver")
	if err := os.WriteFile(noServer, []byte("apiVersion: v1\nkind: Config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	tests := []struct {
		name   string
		config string
		want   string
	}{
		{
			name:   "no kubeconfig",
			config: "imagePolicy:\n  allowTTL: 5\n",
			want:   "ImagePolicyWebhook configuration: imagePolicy.kubeConfigFile is required",
		},
		{
			name:   "missing kubeconfig",
			config: "imagePolicy:\n  kubeConfigFile: " + missing + "\n",
			want:   "ImagePolicyWebhook configuration: stat " + missing + ": no such file or directory",
		},
		{
			name:   "kubeconfig without a server",
			config: "imagePolicy:\n  kubeConfigFile: " + noServer + "\n",
			want:   "ImagePolicyWebhook configuration: invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable",
		},
		{
			name: "no configuration",
			want: "no config specified",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New([]byte(tc.config), newFakeClock())
			if err == nil {
				t.Fatalf("New() = %v, want error", p)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNew builds the plugin from a whole configuration and checks that
// it took the normalized values.
func TestNew(t *testing.T) {
	kc := serve(t, &fakeWebhook{answers: []answer{allow("")}})
	p, err := New([]byte(`{"imagePolicy":{"kubeConfigFile":"`+kc+`","allowTTL":7,"denyTTL":-1,"retryBackoff":20,"defaultAllow":true}}`), newFakeClock())
	if err != nil {
		t.Fatal(err)
	}
	got := []any{p.allowTTL, p.denyTTL, p.backoff.Duration, p.backoff.Steps, p.defaultAllow}
	want := []any{7 * time.Second, time.Duration(0), 20 * time.Millisecond, 5, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plugin (-want +got):\n%s", diff)
	}
}
