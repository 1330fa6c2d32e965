package noderestriction

import (
	"context"
	"reflect"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	"sigs.k8s.io/randfill"

	"github.com/portcullis/portcullis/internal/admission"
)

// vocabulary makes random objects name the nodes, pods, drivers, labels
// and annotations the rules look for, so that fuzzing reaches past the
// first check.
var vocabulary = []string{
	"", "n1", "n2", "system:node:n1", "v1", "Pod", "Node", "ns", "mine", "theirs", "gone", "broken", "fuzz",
	"kube-node-lease", corev1.MirrorPodAnnotationKey, "node-restriction.kubernetes.io/x", "kubernetes.io/hostname",
	"vault", "storage", "secrets.csi.example.com", "disk.csi.example.com", "data", "orphan", "pending",
	certificatesv1.KubeletServingSignerName, "n1-uid", "mine-uid", "fuzz-uid", "sa", "sa-uid",
}

func word(c randfill.Continue) string {
	if c.Intn(4) == 0 {
		return c.String(8)
	}
	return vocabulary[c.Intn(len(vocabulary))]
}

func newFiller(data []byte) *randfill.Filler {
	return randfill.NewFromGoFuzz(data).NilChance(0.4).NumElements(0, 2).MaxDepth(12).Funcs(
		func(s *string, c randfill.Continue) { *s = word(c) },
		func(u *types.UID, c randfill.Continue) { *u = types.UID(word(c)) },
		func(n *types.NodeName, c randfill.Continue) { *n = types.NodeName(word(c)) },
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1<<40), resource.BinarySI)
		},
		// Raw JSON fields hold no meaning here; random bytes in them only
		// make objects that no decoder would produce.
		func(r *runtime.RawExtension, c randfill.Continue) {},
	)
}

// fuzzResources are the requests the fuzzer makes: a resource, its
// subresources, and the type of object it carries.
var fuzzResources = []struct {
	gvr  string
	subs []string
	obj  func() runtime.Object
}{
	{"v1/pods", []string{"", "status", "eviction", "binding"}, func() runtime.Object { return &corev1.Pod{} }},
	{"v1/pods", []string{"eviction"}, func() runtime.Object { return &policyv1.Eviction{} }},
	{"v1/nodes", []string{"", "status"}, func() runtime.Object { return &corev1.Node{} }},
	{"v1/persistentvolumeclaims", []string{"", "status"}, func() runtime.Object { return &corev1.PersistentVolumeClaim{} }},
	{"v1/serviceaccounts", []string{"token", ""}, func() runtime.Object { return &authenticationv1.TokenRequest{} }},
	{"coordination.k8s.io/v1/leases", []string{""}, func() runtime.Object { return &coordinationv1.Lease{} }},
	{"storage.k8s.io/v1/csinodes", []string{""}, func() runtime.Object { return &storagev1.CSINode{} }},
	{"resource.k8s.io/v1/resourceslices", []string{""}, func() runtime.Object { return &resourcev1.ResourceSlice{} }},
	{"certificates.k8s.io/v1/certificatesigningrequests", []string{""}, func() runtime.Object { return &certificatesv1.CertificateSigningRequest{} }},
	{"certificates.k8s.io/v1/podcertificaterequests", []string{"", "status"}, func() runtime.Object { return &certificatesv1.PodCertificateRequest{} }},
	{"v1/configmaps", []string{""}, func() runtime.Object { return &corev1.ConfigMap{} }},
}

var fuzzOps = []admission.Operation{admission.Create, admission.Update, admission.Delete, admission.Connect}

// FuzzAdmit feeds random typed objects, users and stored objects through
// Admit: it must not panic, must not change the request's objects, and
// must never refuse a user that is not a node.
func FuzzAdmit(f *testing.F) {
	for _, seed := range []string{
		"",
		"\x00\x00\x00\x00",
		"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f",
		"pods status eviction nodes leases token audience",
		"\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4\xf3\xf2\xf1\xf0\xef\xee",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fill := newFiller(data)
		var pick struct {
			Resource, Sub, Op, User, Object, Old, Bind uint8
			Name, Namespace                            string
			Allow, NoAudience, InsecureCSRs            bool
		}
		fill.Fill(&pick)

		s := audienceStore()
		s.accounts["ns/sa"] = &corev1.ServiceAccount{}
		stored := &corev1.Pod{}
		fill.Fill(stored)
		stored.Namespace, stored.Name, stored.UID = "ns", "fuzz", "fuzz-uid"
		s.pods["ns/fuzz"] = stored
		s.fail["ns/broken"] = true

		r := fuzzResources[int(pick.Resource)%len(fuzzResources)]
		a := &admission.Attributes{
			Operation: fuzzOps[int(pick.Op)%len(fuzzOps)],
			Namespace: pick.Namespace,
			Name:      pick.Name,
		}
		a.Resource = req("", r.gvr, "", "", "", nil, nil).Resource
		a.Subresource = r.subs[int(pick.Sub)%len(r.subs)]
		a.UserInfo = []user.Info{node1, nodeUser(""), nodeUser("n2"), bob, nil}[int(pick.User)%5]
		a.Object = randomObject(fill, r.obj, pick.Object)
		a.OldObject = randomObject(fill, r.obj, pick.Old)
		if tr, ok := a.Object.(*authenticationv1.TokenRequest); ok && pick.Bind%2 == 0 {
			tr.Spec.BoundObjectRef = &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: "fuzz", UID: "fuzz-uid"}
		}

		authz := &recordingAuthorizer{allow: map[string]bool{}}
		if pick.Allow {
			authz.allow["vault"] = true
		}
		p := newPlugin(t, s, Options{Authorizer: authz, DisableAudienceRestriction: pick.NoAudience, AllowInsecureKubeletCSRs: pick.InsecureCSRs})

		before, beforeOld := copyObject(a.Object), copyObject(a.OldObject)
		err := p.Admit(context.Background(), a)
		if _, isNode := nodeIdentity(a.UserInfo); !isNode && err != nil {
			t.Fatalf("Admit() refused a user that is not a node: %v", err)
		}
		if !reflect.DeepEqual(before, a.Object) || !reflect.DeepEqual(beforeOld, a.OldObject) {
			t.Fatalf("Admit() changed the request's objects")
		}
	})
}

// randomObject is, by choice, no object, an empty one, a random one of the
// resource's type, or a random object of an unrelated type.
func randomObject(fill *randfill.Filler, newObj func() runtime.Object, choice uint8) runtime.Object {
	switch choice % 5 {
	case 0:
		return nil
	case 1:
		return newObj()
	case 2:
		o := &corev1.Secret{}
		fill.Fill(o)
		return o
	default:
		o := newObj()
		fill.Fill(o)
		return o
	}
}

func copyObject(o runtime.Object) runtime.Object {
	if o == nil {
		return nil
	}
	return o.DeepCopyObject()
}
