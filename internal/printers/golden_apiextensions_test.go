package printers

import (
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func apiextensionsCases() []goldenCase {
	certificates := apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "certificates.cert-manager.io", CreationTimestamp: ago(50 * time.Hour), ResourceVersion: "12"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "cert-manager.io", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "certificates", Kind: "Certificate", ShortNames: []string{"cert", "certs"}},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1beta1", Served: true},
				{Name: "v1", Served: true, Storage: true},
				{Name: "v1alpha2", Served: false},
			},
		},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{Conditions: []apiextensionsv1.CustomResourceDefinitionCondition{
			{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionTrue},
			{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
		}},
	}
	installing := apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "clusterwidgets.example.com", CreationTimestamp: ago(time.Second)},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.ClusterScoped,
			Names:    apiextensionsv1.CustomResourceDefinitionNames{Plural: "clusterwidgets", Kind: "ClusterWidget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true}},
		},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{Conditions: []apiextensionsv1.CustomResourceDefinitionCondition{
			{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionFalse, Reason: "Installing"},
		}},
	}
	return []goldenCase{
		{name: "customresourcedefinitions", obj: &apiextensionsv1.CustomResourceDefinitionList{
			ListMeta: metav1.ListMeta{ResourceVersion: "40"},
			Items:    []apiextensionsv1.CustomResourceDefinition{certificates, installing},
		}},
		{name: "customresourcedefinition-single", obj: &certificates},
		{name: "customresourcedefinitions-objects", obj: &apiextensionsv1.CustomResourceDefinitionList{
			Items: []apiextensionsv1.CustomResourceDefinition{installing},
		}, opts: metav1.TableOptions{IncludeObject: metav1.IncludeObject}},
	}
}
