package definition

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

type crd = apiextensionsv1.CustomResourceDefinition

type props = map[string]apiextensionsv1.JSONSchemaProps

// schema is an object schema whose spec has the given properties.
func schema(spec props) *apiextensionsv1.CustomResourceValidation {
	return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
		Type:       "object",
		Properties: props{"spec": {Type: "object", Properties: spec}},
	}}
}

// widgets is a valid namespaced definition of widgets.example.com with
// one served storage version v1, as a client sends it.
func widgets() *crd {
	return &crd{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget", ShortNames: []string{"wd"}},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schema(props{"size": {Type: "integer"}})},
			},
		},
	}
}

// stored is widgets as stored: defaulted and prepared, with a
// resourceVersion, serving v1beta1 and v1 (the storage version) and
// having stored both.
func stored() *crd {
	c := widgets()
	c.ResourceVersion = "5"
	c.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{
		{Name: "v1beta1", Served: true, Schema: schema(props{"size": {Type: "integer"}})},
		{Name: "v1", Served: true, Storage: true, Schema: schema(props{"size": {Type: "integer"}, "color": {Type: "string"}})},
	}
	Default(c)
	c.Status.StoredVersions = []string{"v1beta1", "v1"}
	return c
}

func established(c *crd) *crd {
	c.Status.Conditions = append(c.Status.Conditions, apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue, Reason: ReasonInitialNamesAccepted,
	})
	return c
}

func errorStrings(errs field.ErrorList) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// checkErrors compares errs with want, or with the golden file
// testdata/<test name>.txt (one error a line) when want is nil.
func checkErrors(t *testing.T, errs field.ErrorList, want []string) {
	t.Helper()
	got := errorStrings(errs)
	if want == nil {
		compareGolden(t, strings.Join(got, "\n")+"\n")
		return
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func compareGolden(t *testing.T, got string) {
	t.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(t.Name())+".txt")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}

// caBundle is a PEM certificate a webhook client can trust.
func caBundle(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "webhook-ca"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<33, 0), IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
