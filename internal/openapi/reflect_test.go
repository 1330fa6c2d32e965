package openapi

import (
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// definition returns a definition of the test documents, after the list
// types have been annotated, or fails.
func definition(t *testing.T, d *Documents, name string) *node {
	t.Helper()
	def := d.defs[name]
	if def == nil {
		t.Fatalf("definition %s missing", name)
	}
	return def
}

func TestDefinitions(t *testing.T) {
	d, _ := mustBuild(t)
	type want struct {
		def, field string // field empty: the definition itself
		check      func(t *testing.T, s *node)
	}
	isRef := func(name string) func(*testing.T, *node) {
		return func(t *testing.T, s *node) {
			if s.Ref != name {
				t.Errorf("ref %q, want %q", s.Ref, name)
			}
		}
	}
	tests := map[string]want{
		"pod kind": {"io.k8s.api.core.v1.Pod", "", func(t *testing.T, s *node) {
			if diff := cmp.Diff([]gvk{{Group: "", Version: "v1", Kind: "Pod"}}, s.GVK); diff != "" {
				t.Errorf("gvk (-want +got):\n%s", diff)
			}
			if s.Description != (corev1.Pod{}).SwaggerDoc()[""] || s.Description == "" {
				t.Errorf("description %q", s.Description)
			}
			if got := strings.Join(slices.Sorted(maps.Keys(s.Properties)), ","); got != "apiVersion,kind,metadata,spec,status" {
				t.Errorf("properties %s", got)
			}
			if len(s.Required) != 0 {
				t.Errorf("required %v", s.Required)
			}
		}},
		"pod metadata": {"io.k8s.api.core.v1.Pod", "metadata", func(t *testing.T, s *node) {
			isRef("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")(t, s)
			if !strings.HasPrefix(s.Description, "Standard object's metadata.") || string(s.Default) != "{}" {
				t.Errorf("description %q default %s", s.Description, s.Default)
			}
		}},
		"apiVersion from inlined TypeMeta": {"io.k8s.api.core.v1.Pod", "apiVersion", func(t *testing.T, s *node) {
			if s.Type != "string" || s.Description != (metav1.TypeMeta{}).SwaggerDoc()["apiVersion"] {
				t.Errorf("got %+v", s)
			}
		}},
		"containers": {"io.k8s.api.core.v1.PodSpec", "containers", func(t *testing.T, s *node) {
			if s.Type != "array" || s.Items.Ref != "io.k8s.api.core.v1.Container" || string(s.Items.Default) != "{}" {
				t.Errorf("got %+v items %+v", s, s.Items)
			}
			if s.PatchStrategy != "merge" || s.PatchMergeKey != "name" || s.ListType != "map" || !reflect.DeepEqual(s.ListMapKeys, []string{"name"}) {
				t.Errorf("extensions %q %q %q %v", s.PatchStrategy, s.PatchMergeKey, s.ListType, s.ListMapKeys)
			}
		}},
		"podspec required": {"io.k8s.api.core.v1.PodSpec", "", func(t *testing.T, s *node) {
			if !reflect.DeepEqual(s.Required, []string{"containers"}) {
				t.Errorf("required %v", s.Required)
			}
		}},
		"volumes retainKeys": {"io.k8s.api.core.v1.PodSpec", "volumes", func(t *testing.T, s *node) {
			if s.PatchStrategy != "merge,retainKeys" || s.PatchMergeKey != "name" {
				t.Errorf("got %q %q", s.PatchStrategy, s.PatchMergeKey)
			}
		}},
		"ports keyed by port and protocol": {"io.k8s.api.core.v1.Container", "ports", func(t *testing.T, s *node) {
			if s.ListType != "map" || !reflect.DeepEqual(s.ListMapKeys, []string{"containerPort", "protocol"}) {
				t.Errorf("got %q %v", s.ListType, s.ListMapKeys)
			}
		}},
		"container name required with default": {"io.k8s.api.core.v1.Container", "name", func(t *testing.T, s *node) {
			if s.Type != "string" || string(s.Default) != `""` {
				t.Errorf("got %+v", s)
			}
		}},
		"volume source inlined": {"io.k8s.api.core.v1.Volume", "configMap", func(t *testing.T, s *node) {
			isRef("io.k8s.api.core.v1.ConfigMapVolumeSource")(t, s)
			if s.Description == "" {
				t.Error("no description from VolumeSource's SwaggerDoc")
			}
		}},
		"finalizers set": {"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "finalizers", func(t *testing.T, s *node) {
			if s.ListType != "set" || s.Items.Type != "string" || string(s.Items.Default) != `""` {
				t.Errorf("got %+v", s)
			}
		}},
		"creationTimestamp": {"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "creationTimestamp", isRef("io.k8s.apimachinery.pkg.apis.meta.v1.Time")},
		"labels map": {"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "labels", func(t *testing.T, s *node) {
			if s.Type != "object" || s.AdditionalProperties.Type != "string" {
				t.Errorf("got %+v", s)
			}
		}},
		"nodeSelector atomic map": {"io.k8s.api.core.v1.PodSpec", "nodeSelector", func(t *testing.T, s *node) {
			if s.MapType != "atomic" {
				t.Errorf("map type %q", s.MapType)
			}
		}},
		"atomic struct": {"io.k8s.api.core.v1.LocalObjectReference", "", func(t *testing.T, s *node) {
			if s.MapType != "atomic" {
				t.Errorf("map type %q", s.MapType)
			}
		}},
		"configmap data": {"io.k8s.api.core.v1.ConfigMap", "data", func(t *testing.T, s *node) {
			if s.Type != "object" || s.AdditionalProperties.Type != "string" || s.Description == "" {
				t.Errorf("got %+v", s)
			}
		}},
		"configmap binaryData bytes": {"io.k8s.api.core.v1.ConfigMap", "binaryData", func(t *testing.T, s *node) {
			if a := s.AdditionalProperties; a.Type != "string" || a.Format != "byte" {
				t.Errorf("got %+v", a)
			}
		}},
		"configmap immutable": {"io.k8s.api.core.v1.ConfigMap", "immutable", func(t *testing.T, s *node) {
			if s.Type != "boolean" || s.Default != nil {
				t.Errorf("got %+v", s)
			}
		}},
		"deployment kind": {"io.k8s.api.apps.v1.Deployment", "", func(t *testing.T, s *node) {
			if diff := cmp.Diff([]gvk{{Group: "apps", Version: "v1", Kind: "Deployment"}}, s.GVK); diff != "" {
				t.Errorf("gvk (-want +got):\n%s", diff)
			}
			if s.Description != (appsv1.Deployment{}).SwaggerDoc()[""] {
				t.Errorf("description %q", s.Description)
			}
		}},
		"deployment replicas": {"io.k8s.api.apps.v1.DeploymentSpec", "replicas", func(t *testing.T, s *node) {
			if s.Type != "integer" || s.Format != "int32" || s.Default != nil {
				t.Errorf("got %+v", s)
			}
		}},
		"deployment template": {"io.k8s.api.apps.v1.DeploymentSpec", "template", isRef("io.k8s.api.core.v1.PodTemplateSpec")},
		"deployment selector": {"io.k8s.api.apps.v1.DeploymentSpec", "selector", isRef("io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector")},
		"deployment list": {"io.k8s.api.apps.v1.DeploymentList", "", func(t *testing.T, s *node) {
			if !reflect.DeepEqual(s.Required, []string{"items"}) || s.Properties["items"].Items.Ref != "io.k8s.api.apps.v1.Deployment" {
				t.Errorf("got %+v", s)
			}
		}},
		"clusterrole rules": {"io.k8s.api.rbac.v1.ClusterRole", "rules", func(t *testing.T, s *node) {
			if s.Type != "array" || s.Items.Ref != "io.k8s.api.rbac.v1.PolicyRule" || s.ListType != "atomic" {
				t.Errorf("got %+v", s)
			}
		}},
		"+optional without omitempty": {"io.k8s.api.rbac.v1.ClusterRole", "", func(t *testing.T, s *node) {
			if len(s.Required) != 0 {
				t.Errorf("required %v: rules is marked +optional", s.Required)
			}
		}},
		"+required with omitempty": {"io.k8s.api.apps.v1.Deployment", "", func(t *testing.T, s *node) {
			if !reflect.DeepEqual(s.Required, []string{"spec"}) {
				t.Errorf("required %v: spec is marked +required", s.Required)
			}
		}},
		"clusterrole kind": {"io.k8s.api.rbac.v1.ClusterRole", "", func(t *testing.T, s *node) {
			if diff := cmp.Diff([]gvk{{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}}, s.GVK); diff != "" {
				t.Errorf("gvk (-want +got):\n%s", diff)
			}
		}},
		"policy rule verbs": {"io.k8s.api.rbac.v1.PolicyRule", "verbs", func(t *testing.T, s *node) {
			if s.Type != "array" || s.Items.Type != "string" || s.Description == "" {
				t.Errorf("got %+v", s)
			}
		}},
		"time": {"io.k8s.apimachinery.pkg.apis.meta.v1.Time", "", func(t *testing.T, s *node) {
			if s.Type != "string" || s.Format != "date-time" || s.Description == "" || s.Properties != nil {
				t.Errorf("got %+v", s)
			}
		}},
		"microtime": {"io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime", "", func(t *testing.T, s *node) {
			if s.Type != "string" || s.Format != "date-time" {
				t.Errorf("got %+v", s)
			}
		}},
		"quantity": {"io.k8s.apimachinery.pkg.api.resource.Quantity", "", func(t *testing.T, s *node) {
			if s.Type != "string" || !reflect.DeepEqual(s.OneOf, []string{"string", "number"}) {
				t.Errorf("got %+v", s)
			}
		}},
		"int or string": {"io.k8s.apimachinery.pkg.util.intstr.IntOrString", "", func(t *testing.T, s *node) {
			if s.Type != "string" || s.Format != "int-or-string" || !s.IntOrString {
				t.Errorf("got %+v", s)
			}
		}},
		"raw extension": {"io.k8s.apimachinery.pkg.runtime.RawExtension", "", func(t *testing.T, s *node) {
			if s.Type != "object" || s.Properties != nil {
				t.Errorf("got %+v", s)
			}
		}},
		"fieldsV1": {"io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1", "", func(t *testing.T, s *node) {
			if s.Type != "object" || s.Properties != nil || s.Description == "" {
				t.Errorf("got %+v", s)
			}
		}},
		"delete options in every served group": {"io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions", "", func(t *testing.T, s *node) {
			if !slices.Contains(s.GVK, gvk{Group: "apps", Version: "v1", Kind: "DeleteOptions"}) || !slices.Contains(s.GVK, gvk{Version: "v1", Kind: "DeleteOptions"}) {
				t.Errorf("gvk %v", s.GVK)
			}
		}},
		"scale from an unserved group": {"io.k8s.api.autoscaling.v1.Scale", "", func(t *testing.T, s *node) {
			if !slices.Contains(s.GVK, gvk{Group: "autoscaling", Version: "v1", Kind: "Scale"}) {
				t.Errorf("gvk %v", s.GVK)
			}
		}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			s := definition(t, d, tt.def)
			if tt.field != "" {
				s = s.Properties[tt.field]
				if s == nil {
					t.Fatalf("%s has no property %s", tt.def, tt.field)
				}
			}
			tt.check(t, s)
		})
	}
}

// Types that exercise the reflection rules the k8s.io/api kinds do not.
type (
	inner struct {
		Shared string `json:"shared"`
		Deep   int64  `json:"deep,omitempty"`
	}
	outer struct {
		inner   `json:",inline"`
		*Other  `json:""`
		Shared  string               `json:"shared,omitempty"` // shallower: wins over inner's
		Period  metav1.Duration      `json:"period"`
		Raw     runtime.RawExtension `json:"raw,omitzero"`
		Ratio   float64              `json:"ratio"`
		Skipped string               `json:"-"`
		NoTag   bool
		hidden  string
		Any     any               `json:"any,omitempty"`
		Anon    struct{ X int32 } `json:"anon,omitempty"`
		Bytes   []byte            `json:"bytes,omitempty"`
		Matrix  [][]int32         `json:"matrix,omitempty"`
	}
	Other struct {
		FromPointer string `json:"fromPointer,omitempty"`
	}
	badKeys struct {
		M map[int]string `json:"m"`
	}
	badChan struct {
		C chan int `json:"c"`
	}
)

func TestReflectRules(t *testing.T) {
	r := newReflector(nil)
	name, err := r.define(reflect.TypeFor[outer]())
	if err != nil {
		t.Fatal(err)
	}
	if name != "com.github.portcullis.portcullis.internal.openapi.outer" {
		t.Errorf("name %q", name)
	}
	got, err := json.Marshal(v3Flavour.render(r.defs[name]))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "reflect_outer.json", indentJSON(t, got))
	if d := r.defs["io.k8s.apimachinery.pkg.apis.meta.v1.Duration"]; d == nil || d.Type != "string" || d.Format != "" || d.Description == "" {
		t.Errorf("Duration definition %+v", d)
	}
}

func indentJSON(t *testing.T, raw []byte) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

func TestReflectUnsupported(t *testing.T) {
	for _, typ := range []reflect.Type{reflect.TypeFor[badKeys](), reflect.TypeFor[badChan]()} {
		t.Run(typ.Name(), func(t *testing.T) {
			r := newReflector(nil)
			if _, err := r.define(typ); !errors.Is(err, ErrUnsupportedType) {
				t.Fatalf("err %v, want ErrUnsupportedType", err)
			}
			if len(r.defs) != 0 {
				t.Errorf("left definitions behind: %v", r.defs)
			}
		})
	}
}

func TestDefinitionName(t *testing.T) {
	tests := map[reflect.Type]string{
		reflect.TypeFor[corev1.Pod]():           "io.k8s.api.core.v1.Pod",
		reflect.TypeFor[metav1.ObjectMeta]():    "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
		reflect.TypeFor[runtime.RawExtension](): "io.k8s.apimachinery.pkg.runtime.RawExtension",
		reflect.TypeFor[inner]():                "com.github.portcullis.portcullis.internal.openapi.inner",
	}
	for typ, want := range tests {
		t.Run(typ.String(), func(t *testing.T) {
			if got := definitionName(typ); got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}
