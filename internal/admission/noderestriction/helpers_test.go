package noderestriction

import (
	"context"
	"errors"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/utils/ptr"

	"github.com/portcullis/portcullis/internal/admission"
)

var (
	node1 = &user.DefaultInfo{Name: "system:node:n1", Groups: []string{user.NodesGroup, user.AllAuthenticated}}
	bob   = &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}}

	errBoom = errors.New("boom")
)

// store is a Getter over maps; a missing object is a NotFound with the
// plural resource, as a storage-backed getter would report it, and a name
// listed in fail fails with errBoom.
type store struct {
	pods     map[string]*corev1.Pod // "namespace/name"
	nodes    map[string]*corev1.Node
	accounts map[string]*corev1.ServiceAccount // "namespace/name"
	claims   map[string]*corev1.PersistentVolumeClaim
	volumes  map[string]*corev1.PersistentVolume
	drivers  map[string]*storagev1.CSIDriver
	fail     map[string]bool
}

func lookup[T any](s *store, m map[string]*T, resource, key string) (*T, error) {
	if s.fail[key] {
		return nil, errBoom
	}
	if o, ok := m[key]; ok {
		return o, nil
	}
	_, name, _ := strings.Cut(key, "/")
	if name == "" {
		name = key
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: resource}, name)
}

func (s *store) GetPod(_ context.Context, ns, name string) (*corev1.Pod, error) {
	return lookup(s, s.pods, "pods", ns+"/"+name)
}
func (s *store) GetNode(_ context.Context, name string) (*corev1.Node, error) {
	return lookup(s, s.nodes, "nodes", name)
}
func (s *store) GetServiceAccount(_ context.Context, ns, name string) (*corev1.ServiceAccount, error) {
	return lookup(s, s.accounts, "serviceaccounts", ns+"/"+name)
}
func (s *store) GetPersistentVolumeClaim(_ context.Context, ns, name string) (*corev1.PersistentVolumeClaim, error) {
	return lookup(s, s.claims, "persistentvolumeclaims", ns+"/"+name)
}
func (s *store) GetPersistentVolume(_ context.Context, name string) (*corev1.PersistentVolume, error) {
	return lookup(s, s.volumes, "persistentvolumes", name)
}
func (s *store) GetCSIDriver(_ context.Context, name string) (*storagev1.CSIDriver, error) {
	return lookup(s, s.drivers, "csidrivers", name)
}

// newStore holds node n1 and pods "mine" (on n1), "theirs" (on n2) and
// "unbound" in namespace ns.
func newStore() *store {
	return &store{
		pods: map[string]*corev1.Pod{
			"ns/mine":    boundPod("mine", "n1"),
			"ns/theirs":  boundPod("theirs", "n2"),
			"ns/unbound": boundPod("unbound", ""),
		},
		nodes:    map[string]*corev1.Node{"n1": {ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "n1-uid"}}},
		accounts: map[string]*corev1.ServiceAccount{},
		claims:   map[string]*corev1.PersistentVolumeClaim{},
		volumes:  map[string]*corev1.PersistentVolume{},
		drivers:  map[string]*storagev1.CSIDriver{},
		fail:     map[string]bool{},
	}
}

func boundPod(name, nodeName string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name + "-uid")},
		Spec:       corev1.PodSpec{NodeName: nodeName},
	}
}

// mirrorPod is a valid mirror pod of node n1, named p.
func mirrorPod(mutate ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   "ns",
			Name:        "p",
			Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "hash"},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Node", Name: "n1", UID: "n1-uid", Controller: ptr.To(true),
			}},
		},
		Spec: corev1.PodSpec{
			NodeName:   "n1",
			Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			Volumes:    []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
		},
	}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func tokenRequest(podName string, podUID types.UID, audiences ...string) *authenticationv1.TokenRequest {
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: audiences}}
	if podName != "" {
		tr.Spec.BoundObjectRef = &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: podName, UID: podUID}
	}
	return tr
}

// req builds attributes of node n1 for a resource given as
// "group/version/resource" ("v1/pods" for the core group).
func req(op admission.Operation, gvr, sub, ns, name string, obj, old runtime.Object) *admission.Attributes {
	parts := strings.Split(gvr, "/")
	var r schema.GroupVersionResource
	if len(parts) == 2 {
		r = schema.GroupVersionResource{Version: parts[0], Resource: parts[1]}
	} else {
		r = schema.GroupVersionResource{Group: parts[0], Version: parts[1], Resource: parts[2]}
	}
	return &admission.Attributes{
		Resource: r, Subresource: sub, Namespace: ns, Name: name, Operation: op,
		Object: obj, OldObject: old, UserInfo: node1,
	}
}

func nodeUser(name string) user.Info {
	return &user.DefaultInfo{Name: "system:node:" + name, Groups: []string{user.NodesGroup}}
}

// by returns a with another user.
func by(u user.Info, a *admission.Attributes) *admission.Attributes {
	a.UserInfo = u
	return a
}

// admitCase is one request and the error it must get: "" admits, else the
// exact message. The error must be Forbidden when the message says so, else
// NotFound, unless plain is set (an error that is no API status).
type admitCase struct {
	name  string
	a     *admission.Attributes
	want  string
	plain bool
}

func runAdmit(t *testing.T, p *Plugin, cases []admitCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := p.Admit(context.Background(), tc.a)
			checkErr(t, err, tc.want, tc.plain)
		})
	}
}

func checkErr(t *testing.T, err error, want string, plain bool) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatalf("Admit() = %v, want nil", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("Admit() = nil, want %q", want)
	}
	if err.Error() != want {
		t.Fatalf("Admit() error\n got: %s\nwant: %s", err, want)
	}
	var status apierrors.APIStatus
	isStatus := errors.As(err, &status)
	if plain {
		if _, direct := err.(apierrors.APIStatus); direct {
			t.Fatalf("Admit() error is an API status %v, want a plain error", apierrors.ReasonForError(err))
		}
		return
	}
	isForbidden := strings.Contains(want, " is forbidden: ")
	switch {
	case !isStatus:
		t.Fatalf("Admit() error %T is no API status", err)
	case isForbidden && !apierrors.IsForbidden(err):
		t.Fatalf("Admit() reason = %v, want Forbidden", apierrors.ReasonForError(err))
	case !isForbidden && !apierrors.IsNotFound(err):
		t.Fatalf("Admit() reason = %v, want NotFound", apierrors.ReasonForError(err))
	}
}

func newPlugin(t testing.TB, s *store, opts Options) *Plugin {
	t.Helper()
	p, err := New(s, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// recordingAuthorizer allows the listed audiences and records what it was
// asked.
type recordingAuthorizer struct {
	allow map[string]bool
	asked []authorizer.Attributes
}

func (r *recordingAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	r.asked = append(r.asked, a)
	if r.allow[a.GetResource()] {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}
