package ownerreferences

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/utils/ptr"

	"github.com/portcullis/portcullis/internal/admission"
)

// keyAuthorizer allows the questions whose key is listed and records
// every key asked. A key is "verb group/version/resource/subresource
// namespace/name".
type keyAuthorizer struct {
	allow map[string]bool
	asked []string
}

func key(a authorizer.Attributes) string {
	return fmt.Sprintf("%s %s/%s/%s/%s %s/%s", a.GetVerb(), a.GetAPIGroup(), a.GetAPIVersion(), a.GetResource(), a.GetSubresource(), a.GetNamespace(), a.GetName())
}

func (k *keyAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	k.asked = append(k.asked, key(a))
	if k.allow[key(a)] {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "no RBAC policy matched", nil
}

// owners serves ReplicaSets (apps/v1, namespaced), Nodes (v1, cluster) and
// a kind Multi served by two resources.
func owners(gk schema.GroupKind, version string) ([]Owner, error) {
	switch {
	case gk == schema.GroupKind{Group: "apps", Kind: "ReplicaSet"} && version == "v1":
		return []Owner{{Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}, Namespaced: true}}, nil
	case gk == schema.GroupKind{Kind: "Node"} && version == "v1":
		return []Owner{{Resource: schema.GroupVersionResource{Version: "v1", Resource: "nodes"}}}, nil
	case gk == schema.GroupKind{Group: "example.com", Kind: "Multi"}:
		return []Owner{
			{Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "multis"}, Namespaced: true},
			{Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "clustermultis"}},
		}, nil
	}
	return nil, &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: []string{version}}
}

func ref(apiVersion, kind, name string, uid types.UID, block *bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, BlockOwnerDeletion: block}
}

func pod(refs ...metav1.OwnerReference) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", OwnerReferences: refs}}
}

func TestValidate(t *testing.T) {
	const prefix = `pods "web" is forbidden: `
	const (
		deletePod   = "delete /v1/pods/ ns/web"
		finalizeAny = "update */*/*/finalizers /*"
		finalizeRS  = "update apps/v1/replicasets/finalizers ns/rs"
		finalizeN   = "update /v1/nodes/finalizers /n1"
	)
	rs := ref("apps/v1", "ReplicaSet", "rs", "u1", nil)
	rsBlock := ref("apps/v1", "ReplicaSet", "rs", "u1", ptr.To(true))
	rsNoBlock := ref("apps/v1", "ReplicaSet", "rs", "u1", ptr.To(false))
	tests := []struct {
		name        string
		op          admission.Operation
		subresource string
		obj, old    runtime.Object
		allow       []string
		wantErr     string
		wantAsked   []string
	}{
		{name: "create without owners", op: admission.Create, obj: pod()},
		{name: "create with a non-blocking owner", op: admission.Create, obj: pod(rs)},
		{name: "create blocking, finalizers on the owner", op: admission.Create, obj: pod(rsBlock),
			allow: []string{finalizeRS}, wantAsked: []string{finalizeAny, finalizeRS}},
		{name: "create blocking, finalizers on everything", op: admission.Create, obj: pod(rsBlock),
			allow: []string{finalizeAny}, wantAsked: []string{finalizeAny}},
		{name: "create blocking without finalizers", op: admission.Create, obj: pod(rsBlock),
			wantErr:   prefix + "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: no RBAC policy matched, <nil>",
			wantAsked: []string{finalizeAny, finalizeRS}},
		{name: "cluster-scoped owner is asked without namespace", op: admission.Create, obj: pod(ref("v1", "Node", "n1", "u2", ptr.To(true))),
			allow: []string{finalizeN}, wantAsked: []string{finalizeAny, finalizeN}},
		{name: "every resource of the kind must allow", op: admission.Create, obj: pod(ref("example.com/v1", "Multi", "m", "u3", ptr.To(true))),
			allow:     []string{"update example.com/v1/multis/finalizers ns/m"},
			wantErr:   prefix + "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: no RBAC policy matched, <nil>",
			wantAsked: []string{finalizeAny, "update example.com/v1/multis/finalizers ns/m", "update example.com/v1/clustermultis/finalizers /m"}},
		{name: "unknown kind", op: admission.Create, obj: pod(ref("example.com/v2", "Thing", "t", "u4", ptr.To(true))),
			wantErr:   prefix + `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v2 Kind Thing: no matches for kind "Thing" in version "example.com/v2"`,
			wantAsked: []string{finalizeAny}},
		{name: "bad apiVersion", op: admission.Create, obj: pod(ref("a/b/c", "Thing", "t", "u4", ptr.To(true))),
			wantErr:   prefix + "cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion a/b/c Kind Thing: unexpected GroupVersion string: a/b/c",
			wantAsked: []string{finalizeAny}},
		{name: "update adding an owner needs delete", op: admission.Update, obj: pod(rs), old: pod(),
			wantErr: prefix + "cannot set an ownerRef on a resource you can't delete: no RBAC policy matched, <nil>", wantAsked: []string{deletePod}},
		{name: "update adding an owner with delete", op: admission.Update, obj: pod(rs), old: pod(),
			allow: []string{deletePod}, wantAsked: []string{deletePod}},
		{name: "update removing an owner needs delete", op: admission.Update, obj: pod(), old: pod(rs),
			wantErr: prefix + "cannot set an ownerRef on a resource you can't delete: no RBAC policy matched, <nil>", wantAsked: []string{deletePod}},
		{name: "update leaving owners alone", op: admission.Update, obj: pod(rsBlock), old: pod(rsBlock)},
		{name: "update turning blocking on", op: admission.Update, obj: pod(rsBlock), old: pod(rsNoBlock),
			allow: []string{deletePod}, wantErr: prefix + "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: no RBAC policy matched, <nil>",
			wantAsked: []string{deletePod, finalizeAny, finalizeRS}},
		{name: "update turning blocking off", op: admission.Update, obj: pod(rsNoBlock), old: pod(rsBlock),
			allow: []string{deletePod}, wantAsked: []string{deletePod}},
		{name: "update renaming a blocking owner of the same uid", op: admission.Update, obj: pod(ref("apps/v1", "ReplicaSet", "rs2", "u1", ptr.To(true))), old: pod(rsBlock),
			allow: []string{deletePod}, wantAsked: []string{deletePod}},
		{name: "pods/status exempt", op: admission.Update, subresource: "status", obj: pod(rsBlock), old: pod()},
		{name: "delete not checked", op: admission.Delete, old: pod(rsBlock)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			az := &keyAuthorizer{allow: map[string]bool{}}
			for _, k := range tt.allow {
				az.allow[k] = true
			}
			p, err := New(az, owners)
			if err != nil {
				t.Fatal(err)
			}
			a := &admission.Attributes{Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Subresource: tt.subresource,
				Operation: tt.op, Name: "web", Namespace: "ns", UserInfo: &user.DefaultInfo{Name: "alice"}, Object: tt.obj, OldObject: tt.old}
			err = p.Validate(context.Background(), a)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr || !apierrors.IsForbidden(err)):
				t.Fatalf("error = %v, want Forbidden %q", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantAsked, az.asked); diff != "" {
				t.Errorf("authorizations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAuthorizerErrorIsPrinted(t *testing.T) {
	az := authorizer.AuthorizerFunc(func(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
		return authorizer.DecisionNoOpinion, "", errors.New("webhook timed out")
	})
	p, err := New(az, owners)
	if err != nil {
		t.Fatal(err)
	}
	a := &admission.Attributes{Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Operation: admission.Update,
		Name: "web", Namespace: "ns", UserInfo: &user.DefaultInfo{Name: "alice"}, Object: pod(), OldObject: pod(ref("v1", "Node", "n1", "u", nil))}
	want := `deployments.apps "web" is forbidden: cannot set an ownerRef on a resource you can't delete: , webhook timed out`
	if err := p.Validate(context.Background(), a); err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
}

func TestNew(t *testing.T) {
	az := &keyAuthorizer{}
	if _, err := New(nil, owners); !errors.Is(err, ErrNoAuthorizer) {
		t.Errorf("New(nil, owners) = %v", err)
	}
	if _, err := New(az, nil); !errors.Is(err, ErrNoResources) {
		t.Errorf("New(az, nil) = %v", err)
	}
}
