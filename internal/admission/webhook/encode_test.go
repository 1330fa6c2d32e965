package webhook

import (
	"encoding/json"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestEncodeObjectTypeMeta: an object without type meta is encoded with
// the kind and apiVersion it is served as, exactly as if they had been set
// on it, and the object itself is left alone.
func TestEncodeObjectTypeMeta(t *testing.T) {
	pods := schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	tests := []struct {
		name string
		obj  runtime.Object
		gvk  schema.GroupVersionKind
	}{
		{"pod without type meta", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Labels: map[string]string{"a": "b"}}}, pods},
		{"empty pod", &corev1.Pod{}, pods},
		{"typed config map with its own type meta", &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}}, schema.GroupVersionKind{}},
		{"status without type meta", &metav1.Status{}, schema.GroupVersionKind{Version: "v1", Kind: "Status"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.obj.DeepCopyObject()
			got, err := encodeObject(tt.obj, tt.gvk)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tt.obj, before) {
				t.Fatal("encoding changed the object")
			}
			want := tt.obj.DeepCopyObject()
			if !tt.gvk.Empty() {
				want.GetObjectKind().SetGroupVersionKind(tt.gvk)
			}
			wantJSON, _ := json.Marshal(want)
			var g, w map[string]any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("%s: %v", got, err)
			}
			_ = json.Unmarshal(wantJSON, &w)
			if !reflect.DeepEqual(g, w) {
				t.Fatalf("got %s\nwant %s", got, wantJSON)
			}
		})
	}
}
