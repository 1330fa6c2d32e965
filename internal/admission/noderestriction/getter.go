package noderestriction

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Getter reads the stored objects some rules depend on: the pod a
// deletion, eviction, token or pod certificate is about, the node whose UID
// a mirror pod names, and, for the token audience restriction, the claims,
// volumes and CSI drivers a pod uses. A missing object is an apierrors
// NotFound.
type Getter interface {
	GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
	GetNode(ctx context.Context, name string) (*corev1.Node, error)
	GetServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)
	GetPersistentVolumeClaim(ctx context.Context, namespace, name string) (*corev1.PersistentVolumeClaim, error)
	GetPersistentVolume(ctx context.Context, name string) (*corev1.PersistentVolume, error)
	GetCSIDriver(ctx context.Context, name string) (*storagev1.CSIDriver, error)
}

// GetterFuncs adapts functions to Getter; a lookup whose function is nil
// fails with ErrNotSupported.
type GetterFuncs struct {
	Pod                   func(ctx context.Context, namespace, name string) (*corev1.Pod, error)
	Node                  func(ctx context.Context, name string) (*corev1.Node, error)
	ServiceAccount        func(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)
	PersistentVolumeClaim func(ctx context.Context, namespace, name string) (*corev1.PersistentVolumeClaim, error)
	PersistentVolume      func(ctx context.Context, name string) (*corev1.PersistentVolume, error)
	CSIDriver             func(ctx context.Context, name string) (*storagev1.CSIDriver, error)
}

// GetPod calls g.Pod.
func (g GetterFuncs) GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	if g.Pod == nil {
		return nil, fmt.Errorf("pods: %w", ErrNotSupported)
	}
	return g.Pod(ctx, namespace, name)
}

// GetNode calls g.Node.
func (g GetterFuncs) GetNode(ctx context.Context, name string) (*corev1.Node, error) {
	if g.Node == nil {
		return nil, fmt.Errorf("nodes: %w", ErrNotSupported)
	}
	return g.Node(ctx, name)
}

// GetServiceAccount calls g.ServiceAccount.
func (g GetterFuncs) GetServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	if g.ServiceAccount == nil {
		return nil, fmt.Errorf("serviceaccounts: %w", ErrNotSupported)
	}
	return g.ServiceAccount(ctx, namespace, name)
}

// GetPersistentVolumeClaim calls g.PersistentVolumeClaim.
func (g GetterFuncs) GetPersistentVolumeClaim(ctx context.Context, namespace, name string) (*corev1.PersistentVolumeClaim, error) {
	if g.PersistentVolumeClaim == nil {
		return nil, fmt.Errorf("persistentvolumeclaims: %w", ErrNotSupported)
	}
	return g.PersistentVolumeClaim(ctx, namespace, name)
}

// GetPersistentVolume calls g.PersistentVolume.
func (g GetterFuncs) GetPersistentVolume(ctx context.Context, name string) (*corev1.PersistentVolume, error) {
	if g.PersistentVolume == nil {
		return nil, fmt.Errorf("persistentvolumes: %w", ErrNotSupported)
	}
	return g.PersistentVolume(ctx, name)
}

// GetCSIDriver calls g.CSIDriver.
func (g GetterFuncs) GetCSIDriver(ctx context.Context, name string) (*storagev1.CSIDriver, error) {
	if g.CSIDriver == nil {
		return nil, fmt.Errorf("csidrivers: %w", ErrNotSupported)
	}
	return g.CSIDriver(ctx, name)
}

// The lookups below report a missing object with the resource kube-apiserver's
// listers name (singular, as in `pod "p" not found`), whatever the Getter
// said, so that messages read the same. A nil object without an error is
// missing too.

func (p *Plugin) pod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	o, err := p.get.GetPod(ctx, namespace, name)
	return o, missing(o == nil, err, schema.GroupResource{Resource: "pod"}, name)
}

func (p *Plugin) node(ctx context.Context, name string) (*corev1.Node, error) {
	o, err := p.get.GetNode(ctx, name)
	return o, missing(o == nil, err, schema.GroupResource{Resource: "node"}, name)
}

func (p *Plugin) serviceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	o, err := p.get.GetServiceAccount(ctx, namespace, name)
	return o, missing(o == nil, err, schema.GroupResource{Resource: "serviceaccount"}, name)
}

func (p *Plugin) claim(ctx context.Context, namespace, name string) (*corev1.PersistentVolumeClaim, error) {
	o, err := p.get.GetPersistentVolumeClaim(ctx, namespace, name)
	return o, missing(o == nil, err, schema.GroupResource{Resource: "persistentvolumeclaim"}, name)
}

func (p *Plugin) volume(ctx context.Context, name string) (*corev1.PersistentVolume, error) {
	o, err := p.get.GetPersistentVolume(ctx, name)
	return o, missing(o == nil, err, schema.GroupResource{Resource: "persistentvolume"}, name)
}

func (p *Plugin) csiDriver(ctx context.Context, name string) (*storagev1.CSIDriver, error) {
	o, err := p.get.GetCSIDriver(ctx, name)
	return o, missing(o == nil, err, schema.GroupResource{Group: storagev1.GroupName, Resource: "csidriver"}, name)
}

func missing(isNil bool, err error, gr schema.GroupResource, name string) error {
	switch {
	case apierrors.IsNotFound(err), err == nil && isNil:
		return apierrors.NewNotFound(gr, name)
	default:
		return err
	}
}
