package plugins

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/objects"
	"github.com/portcullis/portcullis/internal/objects/objectstest"
	"github.com/portcullis/portcullis/internal/request"
)

// store writes obj straight into the store under objs.
func store(tb testing.TB, objs *objects.Objects, obj runtime.Object) {
	tb.Helper()
	res, err := objs.ResourceOf(obj)
	if err != nil {
		tb.Fatal(err)
	}
	data, err := objs.Encode(res, obj)
	if err != nil {
		tb.Fatal(err)
	}
	m := obj.(metav1.Object)
	if _, err := objs.Store().Create(context.Background(), res.Key(m.GetNamespace(), m.GetName()), data); err != nil {
		tb.Fatal(err)
	}
}

var allowAll = authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionAllow, "", nil
})

// newPlugins is the chain of opts over a store holding the default
// namespace and its default service account, running until the test ends.
func newPlugins(tb testing.TB, opts admission.Options) *Set {
	tb.Helper()
	objs := objectstest.New(tb)
	store(tb, objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}})
	store(tb, objs, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: "default"}})
	s, err := New(Deps{Objects: objs, Authorizer: allowAll, Loopback: admission.NewLoopback(),
		NotReadyTolerationSeconds: 300, UnreachableTolerationSeconds: 300, Version: "v1.37.2"}, opts)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	tb.Cleanup(func() { cancel(); <-done })
	return s
}

func podAttributes() *admission.Attributes {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx", ImagePullPolicy: corev1.PullIfNotPresent}},
			RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst, SchedulerName: corev1.DefaultSchedulerName}}
	gvk, gvr := corev1.SchemeGroupVersion.WithKind("Pod"), corev1.SchemeGroupVersion.WithResource("pods")
	return &admission.Attributes{Kind: gvk, Resource: gvr, RequestKind: gvk, RequestResource: gvr, Name: "p", Namespace: "default",
		Operation: admission.Create, Object: pod, Options: &metav1.CreateOptions{},
		UserInfo: &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}}
}

// newDefaults are the default-on plugins added after the policy and
// webhook ones, which the "before" chain runs without.
var newDefaults = []string{"LimitRanger", "ServiceAccount", "TaintNodesByCondition", "PodSecurity", "Priority",
	"DefaultTolerationSeconds", "DefaultStorageClass", "StorageObjectInUseProtection", "PodGroupProtection",
	"PersistentVolumeClaimResize", "RuntimeClass", "CertificateApproval", "CertificateSigning", "ClusterTrustBundleAttest",
	"CertificateSubjectRestriction", "DefaultIngressClass", "PodTopologyLabels", "NodeDeclaredFeatureValidator",
	"PodResizeValidator", "ResourceQuota"}

// BenchmarkPodAdmission is one pod create through the whole default
// chain (both phases), against the chain of only NamespaceLifecycle and
// the policy and webhook plugins.
// BenchmarkPodAdmissionTrace is the decision trace's cost: the default
// chain on a pod with the request keeping a trace, and without.
func BenchmarkPodAdmissionTrace(b *testing.B) {
	s := newPlugins(b, admission.Options{})
	for _, trace := range []bool{false, true} {
		b.Run(fmt.Sprintf("trace=%v", trace), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ctx := request.WithState(context.Background(), &request.State{Trace: trace})
				a := podAttributes()
				if err := s.Chain.Admit(ctx, a); err != nil {
					b.Fatal(err)
				}
				if err := s.Chain.Validate(ctx, a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestChainTrace: with a trace kept, every plugin the default chain runs
// is a step, in order, under its name.
func TestChainTrace(t *testing.T) {
	s := newPlugins(t, admission.Options{})
	st := &request.State{Trace: true}
	ctx := request.WithState(context.Background(), st)
	a := podAttributes()
	if err := s.Chain.Admit(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := s.Chain.Validate(ctx, a); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, step := range st.Steps() {
		if step.Stage != request.StageAdmission || step.Outcome != "admitted" || step.Micros < 1 {
			t.Errorf("step %+v", step)
		}
		names = append(names, step.Name+" ("+step.Phase+")")
	}
	want := len(s.Chain.Mutators) + len(s.Chain.Validators)
	if len(names) != want || names[0] != "NamespaceLifecycle (mutate)" || !slices.Contains(names, "PodSecurity (validate)") {
		t.Errorf("steps %q, want %d starting with NamespaceLifecycle's", names, want)
	}
	// Without a trace nothing is kept.
	quiet := &request.State{}
	ctx = request.WithState(context.Background(), quiet)
	a = podAttributes()
	if err := s.Chain.Admit(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := s.Chain.Validate(ctx, a); err != nil {
		t.Fatal(err)
	}
	if n := len(quiet.Steps()); n != 0 {
		t.Errorf("%d steps kept without a trace", n)
	}
}

func BenchmarkPodAdmission(b *testing.B) {
	for _, c := range []struct {
		name string
		opts admission.Options
	}{
		{"defaults", admission.Options{}},
		{"lifecycle+policies+webhooks", admission.Options{Disable: newDefaults}},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := newPlugins(b, c.opts)
			ctx := context.Background()
			for b.Loop() {
				a := podAttributes()
				if err := s.Chain.Admit(ctx, a); err != nil {
					b.Fatal(err)
				}
				if err := s.Chain.Validate(ctx, a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestDefaultChainAdmitsAPod: the defaults give a plain pod what
// kube-apiserver's give it, in one pass.
func TestDefaultChainAdmitsAPod(t *testing.T) {
	s := newPlugins(t, admission.Options{})
	a := podAttributes()
	if err := s.Chain.Admit(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	if err := s.Chain.Validate(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	pod := a.Object.(*corev1.Pod)
	if pod.Spec.ServiceAccountName != "default" || len(pod.Spec.Volumes) != 1 || pod.Spec.Priority == nil || len(pod.Spec.Tolerations) != 2 {
		t.Errorf("pod after the default chain: serviceAccountName %q, volumes %d, priority %v, tolerations %d; want default, 1, 0, 2",
			pod.Spec.ServiceAccountName, len(pod.Spec.Volumes), pod.Spec.Priority, len(pod.Spec.Tolerations))
	}
}

// TestSynced: informer-sync fails until every informer of the chain has
// listed, then passes.
func TestSynced(t *testing.T) {
	objs := objectstest.New(t)
	s, err := New(Deps{Objects: objs, Authorizer: allowAll, Loopback: admission.NewLoopback(), Version: "v1.37.2"}, admission.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Synced(); err == nil {
		t.Fatal("synced before any informer ran")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	defer func() { cancel(); <-done }()
	deadline := time.Now().Add(time.Minute)
	for s.Synced() != nil {
		if time.Now().After(deadline) {
			t.Fatalf("not synced: %v", s.Synced())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
