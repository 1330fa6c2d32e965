package admission

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// objectWithoutMeta is a runtime.Object without ObjectMeta.
type objectWithoutMeta struct{}

func (objectWithoutMeta) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }
func (o objectWithoutMeta) DeepCopyObject() runtime.Object { return o }

func TestObjectName(t *testing.T) {
	cases := []struct {
		name string
		a    *Attributes
		want string
	}{
		{"request name", &Attributes{Name: "r", Object: &corev1.Pod{}}, "r"},
		{"object name", &Attributes{Object: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "o", GenerateName: "g-"}}}, "o"},
		{"generated name", &Attributes{Object: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{GenerateName: "g-"}}}, "g-"},
		{"object without a name", &Attributes{Object: &corev1.Pod{}}, "Unknown"},
		{"no object", &Attributes{}, "Unknown"},
		{"nil object", &Attributes{Object: (*corev1.Pod)(nil)}, "Unknown"},
		{"object without metadata", &Attributes{Object: objectWithoutMeta{}}, "Unknown/errorGettingName"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := ObjectName(tc.a); got != tc.want {
				t.Errorf("ObjectName() = %q, want %q", got, tc.want)
			}
		})
	}
}
