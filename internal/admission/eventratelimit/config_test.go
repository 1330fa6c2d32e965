package eventratelimit

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var typeMeta = metav1.TypeMeta{APIVersion: APIVersion, Kind: Kind}

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    *Configuration
		wantErr string
	}{
		{
			name: "yaml",
			data: `apiVersion: eventratelimit.admission.k8s.io/v1alpha1
kind: Configuration
limits:
- type: Namespace
  qps: 50
  burst: 100
  cacheSize: 2000
- type: User
  qps: 10
  burst: 50
`,
			want: &Configuration{TypeMeta: typeMeta, Limits: []Limit{
				{Type: NamespaceLimitType, QPS: 50, Burst: 100, CacheSize: 2000},
				{Type: UserLimitType, QPS: 10, Burst: 50},
			}},
		},
		{
			name: "json",
			data: `{"apiVersion":"eventratelimit.admission.k8s.io/v1alpha1","kind":"Configuration","limits":[{"type":"Server","qps":5,"burst":20}]}`,
			want: &Configuration{TypeMeta: typeMeta, Limits: []Limit{{Type: ServerLimitType, QPS: 5, Burst: 20}}},
		},
		{
			name: "empty is no configuration",
			data: " \n",
			want: &Configuration{},
		},
		{
			name:    "wrong apiVersion",
			data:    "apiVersion: eventratelimit.admission.k8s.io/v1\nkind: Configuration\nlimits: []\n",
			wantErr: `EventRateLimit configuration: unsupported apiVersion "eventratelimit.admission.k8s.io/v1", want eventratelimit.admission.k8s.io/v1alpha1`,
		},
		{
			name:    "wrong kind",
			data:    "apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Config\n",
			wantErr: `EventRateLimit configuration: expected kind Configuration, got "Config"`,
		},
		{
			name:    "missing apiVersion",
			data:    "kind: Configuration\n",
			wantErr: `EventRateLimit configuration: apiVersion is missing`,
		},
		{
			name:    "unknown field",
			data:    "apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Server\n  qps: 1\n  burst: 1\n  rate: 2\n",
			wantErr: `EventRateLimit configuration: strict decoding error: unknown field "limits[0].rate"`,
		},
		{
			name:    "wrong type of value",
			data:    "apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Server\n  qps: fast\n",
			wantErr: `EventRateLimit configuration: json: cannot unmarshal string into Go struct field Limit.limits.qps of type int32`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Decode([]byte(tc.data))
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("Decode() = %+v, want error %q", got, tc.wantErr)
				}
				if diff := cmp.Diff(tc.wantErr, err.Error()); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				if !errors.Is(err, ErrConfig) {
					t.Errorf("error %v is not ErrConfig", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode() error: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("configuration (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		limits []Limit
		want   []string
	}{
		{
			name:   "every type",
			limits: []Limit{{Type: ServerLimitType, QPS: 1, Burst: 1}, {Type: NamespaceLimitType, QPS: 1, Burst: 1, CacheSize: 1}, {Type: UserLimitType, QPS: 1, Burst: 1}, {Type: SourceAndObjectLimitType, QPS: 1, Burst: 1}},
		},
		{
			name: "no limits",
			want: []string{"limits: Invalid value: null: must not be empty"},
		},
		{
			name:   "empty limits",
			limits: []Limit{},
			want:   []string{"limits: Invalid value: []: must not be empty"},
		},
		{
			name:   "unknown type",
			limits: []Limit{{Type: "Pod", QPS: 1, Burst: 1}},
			want:   []string{`limits[0].type: Unsupported value: "Pod": supported values: "Server", "Namespace", "User", "SourceAndObject"`},
		},
		{
			name:   "zero and negative",
			limits: []Limit{{Type: NamespaceLimitType, QPS: 0, Burst: -1, CacheSize: -1}},
			want: []string{
				"limits[0].burst: Invalid value: -1: must be positive",
				"limits[0].qps: Invalid value: 0: must be positive",
				"limits[0].cacheSize: Invalid value: -1: must not be negative",
			},
		},
		{
			name:   "server ignores cacheSize",
			limits: []Limit{{Type: ServerLimitType, QPS: 1, Burst: 1, CacheSize: -5}},
		},
		{
			name:   "second limit",
			limits: []Limit{{Type: UserLimitType, QPS: 1, Burst: 1}, {Type: UserLimitType, QPS: -2, Burst: 1}},
			want:   []string{"limits[1].qps: Invalid value: -2: must be positive"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range (&Configuration{TypeMeta: typeMeta, Limits: tc.limits}).Validate() {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewRefusesInvalid(t *testing.T) {
	tests := []struct {
		name   string
		config string
		want   string
	}{
		{
			name: "no configuration",
			want: "EventRateLimit configuration: limits: Invalid value: null: must not be empty",
		},
		{
			name:   "two problems",
			config: "apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: User\n  qps: 0\n  burst: 0\n",
			want:   "EventRateLimit configuration: [limits[0].burst: Invalid value: 0: must be positive, limits[0].qps: Invalid value: 0: must be positive]",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New([]byte(tc.config), nil)
			if err == nil {
				t.Fatalf("New() = %v, want error", p)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("error %v is not ErrConfig", err)
			}
		})
	}
}
