package resourcequota

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name string
		data string
		want *Configuration
		err  string
	}{{
		name: "empty",
		data: " \n",
		want: &Configuration{},
	}, {
		name: "v1",
		data: `apiVersion: apiserver.config.k8s.io/v1
kind: ResourceQuotaConfiguration
limitedResources:
- resource: pods
  matchContains: [requests.cpu]
  matchScopes:
  - scopeName: PriorityClass
    operator: In
    values: [high]
- apiGroup: ""
  resource: persistentvolumeclaims
`,
		want: &Configuration{
			TypeMeta: metav1.TypeMeta{APIVersion: "apiserver.config.k8s.io/v1", Kind: "ResourceQuotaConfiguration"},
			LimitedResources: []LimitedResource{
				{Resource: "pods", MatchContains: []string{"requests.cpu"}, MatchScopes: []corev1.ScopedResourceSelectorRequirement{{
					ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: corev1.ScopeSelectorOpIn, Values: []string{"high"}}}},
				{Resource: "persistentvolumeclaims"},
			},
		},
	}, {
		name: "v1alpha1 in JSON",
		data: `{"apiVersion":"resourcequota.admission.k8s.io/v1alpha1","kind":"Configuration","limitedResources":[]}`,
		want: &Configuration{TypeMeta: metav1.TypeMeta{APIVersion: "resourcequota.admission.k8s.io/v1alpha1", Kind: "Configuration"}, LimitedResources: []LimitedResource{}},
	}, {
		name: "unknown field",
		data: "apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResource: []\n",
		err:  `resourcequota: invalid configuration: strict decoding error: unknown field "limitedResource"`,
	}, {
		name: "wrong kind",
		data: "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n",
		err:  `resourcequota: invalid configuration: expected kind ResourceQuotaConfiguration, got "AdmissionConfiguration"`,
	}, {
		name: "wrong version",
		data: "apiVersion: resourcequota.admission.k8s.io/v2\nkind: Configuration\n",
		err:  `resourcequota: invalid configuration: unsupported apiVersion "resourcequota.admission.k8s.io/v2", want apiserver.config.k8s.io/v1`,
	}, {
		name: "missing resources",
		data: "apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResources:\n- matchContains: [a]\n- resource: pods\n- apiGroup: x\n",
		err:  `resourcequota: invalid configuration: [limitedResources[0].resource: Required value, limitedResources[2].resource: Required value]`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.data))
			if d := cmp.Diff(tt.err, errText(err)); d != "" {
				t.Fatalf("error (-want +got):\n%s", d)
			}
			if err != nil && !errors.Is(err, ErrConfig) {
				t.Errorf("error %v is not ErrConfig", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("configuration (-want +got):\n%s", d)
			}
		})
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte("apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResources:\n- resource: pods\n  matchContains: [cpu]\n"))
	f.Add([]byte(`{"apiVersion":"resourcequota.admission.k8s.io/v1beta1","kind":"Configuration","limitedResources":[{"resource":"pods","matchScopes":[{"scopeName":"PriorityClass","operator":"Exists"}]}]}`))
	f.Add([]byte("kind: Configuration\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Decode(data)
		if (c == nil) == (err == nil) {
			t.Fatalf("Decode gave configuration %v and error %v", c, err)
		}
		if err == nil {
			if verr := c.Validate(); verr != nil {
				t.Fatalf("Decode accepted an invalid configuration: %v", verr)
			}
		}
	})
}
