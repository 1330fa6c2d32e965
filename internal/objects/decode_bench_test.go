package objects_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/defaults"
	"github.com/portcullis/portcullis/internal/objects/objectstest"
	"github.com/portcullis/portcullis/internal/storage"
)

// BenchmarkDecode is the read path's cost per object: the protobuf decode
// and the defaults applied on read, for a ConfigMap and a Pod.
func BenchmarkDecode(b *testing.B) {
	o := objectstest.New(b)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx", Ports: []corev1.ContainerPort{{ContainerPort: 80}}}}}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"}, Data: map[string]string{"k": "v"}}
	for _, tc := range []struct {
		name string
		gvr  schema.GroupVersionResource
		obj  runtime.Object
	}{
		{"ConfigMap", schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, cm},
		{"Pod", schema.GroupVersionResource{Version: "v1", Resource: "pods"}, pod},
	} {
		b.Run(tc.name, func(b *testing.B) {
			res, _ := o.Lookup(tc.gvr)
			// Stored objects were defaulted when written.
			defaults.Apply(tc.obj)
			value, err := o.Encode(res, tc.obj)
			if err != nil {
				b.Fatal(err)
			}
			kv := storage.KeyValue{Key: res.Key("default", "x"), Value: value, ModRevision: 7}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := o.DecodeContext(context.Background(), res, kv); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
