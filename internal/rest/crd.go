package rest

import (
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/registry"
)

// markCRDTerminating is what deleting a CRD does before anything else, as
// in kube-apiserver: the cleanup finalizer keeps it while its objects are
// removed, and a Terminating condition says so.
func markCRDTerminating(crd *apiextensionsv1.CustomResourceDefinition, now time.Time) {
	has := false
	for _, f := range crd.Finalizers {
		has = has || f == registry.CRDCleanupFinalizer
	}
	if !has {
		crd.Finalizers = append(crd.Finalizers, registry.CRDCleanupFinalizer)
	}
	cond := apiextensionsv1.CustomResourceDefinitionCondition{
		Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionTrue,
		Reason: "InstanceDeletionPending", Message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
		LastTransitionTime: metav1.NewTime(now.Truncate(time.Second)),
	}
	for i, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Terminating {
			crd.Status.Conditions[i] = cond
			return
		}
	}
	crd.Status.Conditions = append(crd.Status.Conditions, cond)
}
