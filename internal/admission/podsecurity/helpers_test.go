package podsecurity

import (
	"context"
	"errors"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/request"
)

// env is a plugin over fixed namespaces and pods.
type env struct {
	namespaces map[string]*corev1.Namespace
	pods       map[string][]*corev1.Pod
	podsErr    error
	// onList runs when the pods are listed (a test's way to use up the
	// time budget without a clock).
	onList func()
}

func (e *env) plugin(t *testing.T, cfg string) *Plugin {
	t.Helper()
	p, err := New([]byte(cfg), Deps{
		Namespaces: func(_ context.Context, name string) (*corev1.Namespace, error) {
			if ns, ok := e.namespaces[name]; ok {
				return ns, nil
			}
			return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
		},
		Pods: func(_ context.Context, ns string) ([]*corev1.Pod, error) {
			if e.onList != nil {
				e.onList()
			}
			return e.pods[ns], e.podsErr
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// outcome is what a client and the audit log see of one request.
type outcome struct {
	Code        int32
	Message     string
	Warnings    []string
	Annotations map[string]string
}

func run(ctx context.Context, p *Plugin, a *admission.Attributes) (outcome, error) {
	st := &request.State{}
	err := p.Validate(request.WithState(ctx, st), a)
	o := outcome{Warnings: st.Warnings(), Annotations: st.Annotations()}
	if len(o.Annotations) == 0 {
		o.Annotations = nil
	}
	if err != nil {
		var se *apierrors.StatusError
		if !errors.As(err, &se) {
			return o, err
		}
		o.Code, o.Message = se.ErrStatus.Code, se.ErrStatus.Message
	}
	return o, nil
}

func namespace(name string, labels map[string]string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func levels(enforce, audit, warn string) map[string]string {
	l := map[string]string{}
	for k, v := range map[string]string{
		"pod-security.kubernetes.io/enforce": enforce,
		"pod-security.kubernetes.io/audit":   audit,
		"pod-security.kubernetes.io/warn":    warn,
	} {
		if v != "" {
			l[k] = v
		}
	}
	return l
}

var (
	podsGVR        = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	namespacesGVR  = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
)

func attrs(gvr schema.GroupVersionResource, kind string, op admission.Operation, obj, old runtime.Object) *admission.Attributes {
	gvk := gvr.GroupVersion().WithKind(kind)
	a := &admission.Attributes{
		Kind: gvk, Resource: gvr, RequestKind: gvk, RequestResource: gvr,
		Operation: op, Object: obj, OldObject: old,
		UserInfo: &user.DefaultInfo{Name: "alice"},
	}
	src := obj
	if src == nil {
		src = old
	}
	if m, ok := src.(metav1.Object); ok {
		a.Name, a.Namespace = m.GetName(), m.GetNamespace()
	}
	if gvr == namespacesGVR {
		a.Namespace = a.Name
	}
	return a
}

func podAttrs(op admission.Operation, pod, old *corev1.Pod) *admission.Attributes {
	var o runtime.Object
	if old != nil {
		o = old
	}
	return attrs(podsGVR, "Pod", op, pod, o)
}

func ptr[T any](v T) *T { return &v }

// restrictedSpec passes every check at every level.
func restrictedSpec() corev1.PodSpec {
	return corev1.PodSpec{
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot:   ptr(true),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Containers: []corev1.Container{{
			Name: "c", Image: "img:1",
			SecurityContext: &corev1.SecurityContext{
				AllowPrivilegeEscalation: ptr(false),
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			},
		}},
	}
}

// baselineSpec passes baseline but not restricted: no security context.
func baselineSpec() corev1.PodSpec {
	return corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img:1"}}}
}

// privilegedSpec fails baseline.
func privilegedSpec() corev1.PodSpec {
	s := baselineSpec()
	s.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr(true)}
	return s
}

func pod(ns, name string, spec corev1.PodSpec) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
}

func sortedOrNil(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	sort.Strings(s)
	return s
}
