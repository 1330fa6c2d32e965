// Package crdcleanup finishes the deletion of CustomResourceDefinitions,
// as kube-apiserver's CRD finalizer does: deleting a CRD only marks it
// (the REST layer adds the customresourcecleanup.apiextensions.k8s.io
// finalizer and a Terminating condition); this controller then deletes
// every custom resource of the CRD through the API, so that their own
// finalizers and admission apply, waits until none is left, and removes
// the finalizer, which lets the CRD go.
package crdcleanup
