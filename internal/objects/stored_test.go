package objects_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/portcullis/portcullis/internal/objects/objectstest"
)

// TestDecodeKubeAPIServerValues reads values as kube-apiserver v1.37
// stores them on a shared etcd: CustomResourceDefinitions as v1beta1 JSON,
// APIServices as JSON, ClusterTrustBundles as v1beta1 protobuf.
func TestDecodeKubeAPIServerValues(t *testing.T) {
	o := objectstest.New(t)
	ctx := context.Background()
	put := func(key string, value []byte) {
		t.Helper()
		if _, err := o.Store().Create(ctx, key, value); err != nil {
			t.Fatal(err)
		}
	}
	// As kube-apiserver v1.37.2 wrote it (abridged from its etcd).
	put("/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com", []byte(`{"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1beta1",`+
		`"metadata":{"name":"widgets.example.com","uid":"u1","creationTimestamp":"2026-12-02T16:20:00Z"},`+
		`"spec":{"group":"example.com","version":"v1","names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},"scope":"Namespaced",`+
		`"validation":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}},`+
		`"versions":[{"name":"v1","served":true,"storage":true}],"conversion":{"strategy":"None"},"preserveUnknownFields":false},`+
		`"status":{"conditions":[],"acceptedNames":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},"storedVersions":["v1"]}}`+"\n"))
	put("/registry/apiregistration.k8s.io/apiservices/v1.example.com", []byte(`{"kind":"APIService","apiVersion":"apiregistration.k8s.io/v1","metadata":{"name":"v1.example.com"},"spec":{"group":"example.com","version":"v1","groupPriorityMinimum":1000,"versionPriority":15}}`+"\n"))
	var ctb bytes.Buffer
	if err := protobuf.NewSerializer(clientgoscheme.Scheme, clientgoscheme.Scheme).Encode(&certificatesv1beta1.ClusterTrustBundle{
		TypeMeta:   metav1.TypeMeta{APIVersion: "certificates.k8s.io/v1beta1", Kind: "ClusterTrustBundle"},
		ObjectMeta: metav1.ObjectMeta{Name: "ctb"},
		Spec:       certificatesv1beta1.ClusterTrustBundleSpec{SignerName: "example.com/s", TrustBundle: "pem"},
	}, &ctb); err != nil {
		t.Fatal(err)
	}
	put("/registry/clustertrustbundles/ctb", ctb.Bytes())

	crd := get(t, o.Get, schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}, "widgets.example.com").(*apiextensionsv1.CustomResourceDefinition)
	if v := crd.Spec.Versions; len(v) != 1 || v[0].Name != "v1" || v[0].Schema == nil || v[0].Schema.OpenAPIV3Schema.Type != "object" {
		t.Errorf("CRD versions after conversion from v1beta1: %+v", v)
	}
	if crd.Spec.Names.Kind != "Widget" || crd.Status.StoredVersions[0] != "v1" || crd.UID != "u1" {
		t.Errorf("CRD after conversion from v1beta1: %+v", crd)
	}
	api := get(t, o.Get, schema.GroupVersionResource{Group: "apiregistration.k8s.io", Version: "v1", Resource: "apiservices"}, "v1.example.com").(*apiregistrationv1.APIService)
	if api.Spec.Group != "example.com" || api.Spec.VersionPriority != 15 {
		t.Errorf("APIService from JSON: %+v", api.Spec)
	}
	got := get(t, o.Get, schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "clustertrustbundles"}, "ctb").(*certificatesv1.ClusterTrustBundle)
	if diff := cmp.Diff(certificatesv1.ClusterTrustBundleSpec{SignerName: "example.com/s", TrustBundle: "pem"}, got.Spec); diff != "" {
		t.Errorf("ClusterTrustBundle from v1beta1 (-want +got):\n%s", diff)
	}
	if data, _ := json.Marshal(got.TypeMeta); got.APIVersion != "certificates.k8s.io/v1" {
		t.Errorf("ClusterTrustBundle type %s", data)
	}
}

func get(t *testing.T, fn func(context.Context, schema.GroupVersionResource, string, string) (runtime.Object, error), gvr schema.GroupVersionResource, name string) runtime.Object {
	t.Helper()
	obj, err := fn(context.Background(), gvr, "", name)
	if err != nil {
		t.Fatalf("get %s %s: %v", gvr.Resource, name, err)
	}
	return obj
}
