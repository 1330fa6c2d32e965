package validation

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/portcullis/portcullis/internal/defaults"
)

// storedCRD is a defaulted definition of widgets.example.com as stored.
func storedCRD() *apiextensionsv1.CustomResourceDefinition {
	c := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com", ResourceVersion: "3"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(true)}},
			}},
		},
	}
	defaults.Apply(c)
	return c
}

// TestCRD checks that definitions reach crd/definition's rules through
// Create, Update and StatusUpdate, as a cluster-scoped kind, and that the
// generic metadata rules Update adds repeat none of its errors.
func TestCRD(t *testing.T) {
	tests := []struct {
		name  string
		check func() field.ErrorList
		want  []string
	}{
		{name: "create", check: func() field.ErrorList { return Create(storedCRD()) }},
		{name: "create with a name that is not plural.group", check: func() field.ErrorList {
			c := storedCRD()
			c.Name = "gadgets.example.com"
			return Create(c)
		}, want: []string{`metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group`}},
		{name: "update", check: func() field.ErrorList {
			c := storedCRD()
			c.Spec.Names.ShortNames = []string{"wd"}
			return Update(c, storedCRD())
		}},
		{name: "update of immutable fields", check: func() field.ErrorList {
			c := storedCRD()
			c.Name, c.Spec.Group = "widgets.example.org", "example.org"
			return Update(c, storedCRD())
		}, want: []string{
			`metadata.name: Invalid value: "widgets.example.org": field is immutable`,
			`spec.group: Invalid value: "example.org": field is immutable`,
		}},
		{name: "update dropping the storage version", check: func() field.ErrorList {
			c := storedCRD()
			c.Spec.Versions[0].Storage = false
			return Update(c, storedCRD())
		}, want: []string{
			`spec.versions: Invalid value: [{"Name":"v1","Served":true,"Storage":false,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}]: must have exactly one version marked as storage version`,
		}},
		{name: "status update emptying storedVersions", check: func() field.ErrorList {
			c := storedCRD()
			c.Status.StoredVersions = nil
			return StatusUpdate(c, storedCRD())
		}},
		{name: "status update of a bad accepted name", check: func() field.ErrorList {
			c := storedCRD()
			c.Status.AcceptedNames.Plural = "Widgets"
			return StatusUpdate(c, storedCRD())
		}, want: []string{
			`status.acceptedNames.plural: Invalid value: "Widgets": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
		}},
		{name: "status update without resourceVersion", check: func() field.ErrorList {
			c := storedCRD()
			c.ResourceVersion = ""
			return StatusUpdate(c, storedCRD())
		}, want: []string{`metadata.resourceVersion: Invalid value: "": must be specified for an update`}},
		{name: "status update of another kind is an update", check: func() field.ErrorList {
			ns := &corev1.Namespace{ObjectMeta: om("team")}
			return StatusUpdate(ns, &corev1.Namespace{ObjectMeta: om("team")})
		}, want: []string{`metadata.resourceVersion: Invalid value: "": must be specified for an update`}},
		{name: "status update of two kinds", check: func() field.ErrorList {
			return StatusUpdate(storedCRD(), &corev1.Namespace{})
		}, want: []string{"[]: Internal error: validation: old and new objects differ in type: *v1.Namespace"}},
		{name: "status update of nil", check: func() field.ErrorList {
			return StatusUpdate((*apiextensionsv1.CustomResourceDefinition)(nil), storedCRD())
		}, want: []string{"[]: Internal error: validation: nil object: *v1.CustomResourceDefinition"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectErrors(t, tc.check(), tc.want)
		})
	}
}

func TestCRDIsClusterScoped(t *testing.T) {
	var obj runtime.Object = &apiextensionsv1.CustomResourceDefinition{}
	if namespaced(obj) {
		t.Error("CustomResourceDefinitions are cluster-scoped")
	}
}
