package objects

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Typed reads of the objects the access-control chain looks at: the
// service account authenticator, NodeRestriction, NamespaceLifecycle and
// the webhook service resolver each define the subset they need.

func get[T runtime.Object](ctx context.Context, o *Objects, gvr schema.GroupVersionResource, ns, name string) (T, error) {
	var zero T
	obj, err := o.Get(ctx, gvr, ns, name)
	if err != nil {
		return zero, err
	}
	t, ok := obj.(T)
	if !ok {
		return zero, fmt.Errorf("%s %s/%s is a %T", gvr.Resource, ns, name, obj)
	}
	return t, nil
}

func core(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Version: "v1", Resource: resource}
}

// GetNamespace reads a namespace.
func (o *Objects) GetNamespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	return get[*corev1.Namespace](ctx, o, core("namespaces"), "", name)
}

// GetServiceAccount reads a service account.
func (o *Objects) GetServiceAccount(ctx context.Context, ns, name string) (*corev1.ServiceAccount, error) {
	return get[*corev1.ServiceAccount](ctx, o, core("serviceaccounts"), ns, name)
}

// GetPod reads a pod.
func (o *Objects) GetPod(ctx context.Context, ns, name string) (*corev1.Pod, error) {
	return get[*corev1.Pod](ctx, o, core("pods"), ns, name)
}

// GetConfigMap reads a config map.
func (o *Objects) GetConfigMap(ctx context.Context, ns, name string) (*corev1.ConfigMap, error) {
	return get[*corev1.ConfigMap](ctx, o, core("configmaps"), ns, name)
}

// GetSecret reads a secret.
func (o *Objects) GetSecret(ctx context.Context, ns, name string) (*corev1.Secret, error) {
	return get[*corev1.Secret](ctx, o, core("secrets"), ns, name)
}

// GetNode reads a node.
func (o *Objects) GetNode(ctx context.Context, name string) (*corev1.Node, error) {
	return get[*corev1.Node](ctx, o, core("nodes"), "", name)
}

// GetService reads a service.
func (o *Objects) GetService(ctx context.Context, ns, name string) (*corev1.Service, error) {
	return get[*corev1.Service](ctx, o, core("services"), ns, name)
}

// GetEndpoints reads the endpoints of a service.
func (o *Objects) GetEndpoints(ctx context.Context, ns, name string) (*corev1.Endpoints, error) {
	return get[*corev1.Endpoints](ctx, o, core("endpoints"), ns, name)
}

// GetPersistentVolumeClaim reads a persistent volume claim.
func (o *Objects) GetPersistentVolumeClaim(ctx context.Context, ns, name string) (*corev1.PersistentVolumeClaim, error) {
	return get[*corev1.PersistentVolumeClaim](ctx, o, core("persistentvolumeclaims"), ns, name)
}

// GetPersistentVolume reads a persistent volume.
func (o *Objects) GetPersistentVolume(ctx context.Context, name string) (*corev1.PersistentVolume, error) {
	return get[*corev1.PersistentVolume](ctx, o, core("persistentvolumes"), "", name)
}

// GetCSIDriver reads a CSI driver.
func (o *Objects) GetCSIDriver(ctx context.Context, name string) (*storagev1.CSIDriver, error) {
	return get[*storagev1.CSIDriver](ctx, o, schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "csidrivers"}, "", name)
}
