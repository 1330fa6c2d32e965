package policytest

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/admission"
)

var (
	PodsGVR      = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	PodGVK       = schema.GroupVersionKind{Version: "v1", Kind: "Pod"}
	ConfigMapGVK = schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
)

// Alice is the user of PodRequest.
var Alice = &user.DefaultInfo{Name: "alice", UID: "u-1", Groups: []string{"dev", "system:authenticated"}, Extra: map[string][]string{"team": {"a"}}}

// PodRequest returns the attributes of a pod write by Alice.
func PodRequest(op admission.Operation, pod, old *corev1.Pod) *admission.Attributes {
	a := &admission.Attributes{
		Kind: PodGVK, Resource: PodsGVR, RequestKind: PodGVK, RequestResource: PodsGVR,
		Operation: op, UserInfo: Alice,
	}
	if pod != nil {
		a.Object = pod
		a.Name, a.Namespace = pod.Name, pod.Namespace
	}
	if old != nil {
		a.OldObject = old
		a.Name, a.Namespace = old.Name, old.Namespace
	}
	return a
}

// Pod returns a pod with the given containers, one nginx container
// without any.
func Pod(ns, name string, lbls map[string]string, containers ...corev1.Container) *corev1.Pod {
	if len(containers) == 0 {
		containers = []corev1.Container{{Name: "app", Image: "nginx"}}
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: lbls},
		Spec:       corev1.PodSpec{Containers: containers},
	}
}

// StatusOf returns err as the StatusError it must be.
func StatusOf(t testing.TB, err error) *apierrors.StatusError {
	t.Helper()
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Fatalf("error %v (%T) is not a StatusError", err, err)
	}
	return se
}

// Loader is a plugin as the server feeds it policies and bindings.
type Loader interface {
	Upsert(obj runtime.Object)
}

// Load gives objs to l in order and returns l.
func Load[L Loader](l L, objs ...runtime.Object) L {
	for _, o := range objs {
		l.Upsert(o)
	}
	return l
}
