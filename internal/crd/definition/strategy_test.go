package definition

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
)

func TestDefault(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "names, conversion and storedVersions",
			in:   `{"spec":{"group":"example.com","names":{"plural":"widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1beta1","served":true,"storage":false},{"name":"v1","served":true,"storage":true}]}}`,
			want: `{"metadata":{},"spec":{"group":"example.com","names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},"scope":"Namespaced","versions":[{"name":"v1beta1","served":true,"storage":false},{"name":"v1","served":true,"storage":true}],"conversion":{"strategy":"None"}},"status":{"conditions":null,"acceptedNames":{"plural":"","kind":""},"storedVersions":["v1"]}}`},
		{name: "webhook service port",
			in:   `{"spec":{"names":{"plural":"widgets","singular":"gizmo","kind":"Widget","listKind":"Widgets"},"conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"service":{"namespace":"ns","name":"conv"}},"conversionReviewVersions":["v1"]}}},"status":{"storedVersions":["v0"]}}`,
			want: `{"metadata":{},"spec":{"group":"","names":{"plural":"widgets","singular":"gizmo","kind":"Widget","listKind":"Widgets"},"scope":"","versions":null,"conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"service":{"namespace":"ns","name":"conv","port":443}},"conversionReviewVersions":["v1"]}}},"status":{"conditions":null,"acceptedNames":{"plural":"","kind":""},"storedVersions":["v0"]}}`},
		{name: "no kind, no listKind",
			in:   `{"spec":{"names":{"plural":"widgets"}}}`,
			want: `{"metadata":{},"spec":{"group":"","names":{"plural":"widgets","kind":""},"scope":"","versions":null,"conversion":{"strategy":"None"}},"status":{"conditions":null,"acceptedNames":{"plural":"","kind":""},"storedVersions":null}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &crd{}
			if err := json.Unmarshal([]byte(tc.in), c); err != nil {
				t.Fatal(err)
			}
			Default(c)
			got, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	Default(nil) // must not panic
}

func TestPrepareForCreate(t *testing.T) {
	c := stored()
	c.Status = apiextensionsv1.CustomResourceDefinitionStatus{
		StoredVersions: []string{"v0"},
		AcceptedNames:  apiextensionsv1.CustomResourceDefinitionNames{Plural: "stolen"},
		Conditions:     []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}},
	}
	PrepareForCreate(c)
	want := apiextensionsv1.CustomResourceDefinitionStatus{StoredVersions: []string{"v1"}}
	if diff := cmp.Diff(want, c.Status); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	PrepareForCreate(nil)
}

func TestPrepareForUpdate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(c *crd)
		want   []string
	}{
		{name: "same storage version", mutate: func(*crd) {}, want: []string{"v1beta1", "v1"}},
		{name: "new storage version", mutate: func(c *crd) {
			c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: "v2", Served: true, Storage: true})
			c.Spec.Versions[1].Storage = false
		}, want: []string{"v1beta1", "v1", "v2"}},
		{name: "storage moves back", mutate: func(c *crd) { c.Spec.Versions[0].Storage, c.Spec.Versions[1].Storage = true, false },
			want: []string{"v1beta1", "v1"}},
		{name: "status sent with the update is ignored", mutate: func(c *crd) {
			c.Status.StoredVersions = []string{"v9"}
			c.Status.Conditions = nil
		}, want: []string{"v1beta1", "v1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old := established(stored())
			old.Status.StoredVersions = make([]string, 2, 10) // room to append into, which must not be used
			copy(old.Status.StoredVersions, []string{"v1beta1", "v1"})
			oldCopy := old.DeepCopy()
			c := old.DeepCopy()
			tc.mutate(c)
			PrepareForUpdate(c, old)
			if diff := cmp.Diff(tc.want, c.Status.StoredVersions); diff != "" {
				t.Errorf("storedVersions (-want +got):\n%s", diff)
			}
			if !IsEstablished(c) {
				t.Error("the stored conditions were not kept")
			}
			if diff := cmp.Diff(oldCopy, old); diff != "" {
				t.Errorf("old changed (-before +after):\n%s", diff)
			}
			if got := old.Status.StoredVersions[:3][2]; got != "" {
				t.Errorf("old's storedVersions array was appended to: %q", got)
			}
		})
	}
}

func TestWarnings(t *testing.T) {
	withFormats := func(formats ...string) *crd {
		c := widgets()
		p := props{}
		for i, f := range formats {
			p[string(rune('a'+i))] = apiextensionsv1.JSONSchemaProps{Type: "string", Format: f}
		}
		p["sets"] = apiextensionsv1.JSONSchemaProps{
			Type: "array", XListType: ptr.To("set"),
			Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "object"}},
		}
		c.Spec.Versions[0].Schema = schema(p)
		return c
	}
	t.Run("create", func(t *testing.T) {
		want := []string{
			`unrecognized format "colour"`,
			`x-kubernetes-list-type: set for items of type "object" is not supported by server-side apply or CEL validation rules`,
		}
		if diff := cmp.Diff(want, WarningsOnCreate(withFormats("colour", "date-time"))); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("update warns of new formats only", func(t *testing.T) {
		want := []string{`unrecognized format "flavour"`}
		if diff := cmp.Diff(want, WarningsOnUpdate(withFormats("colour", "flavour"), withFormats("colour"))); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
	t.Run("none", func(t *testing.T) {
		if got := WarningsOnCreate(widgets()); len(got) != 0 {
			t.Errorf("got %q", got)
		}
	})
}
