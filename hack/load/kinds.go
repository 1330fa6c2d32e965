package main

import (
	"bytes"
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
)

// client is one load client: a typed and a dynamic client over one
// transport.
type client struct {
	kube kubernetes.Interface
	dyn  dynamic.Interface
}

// kind is the object type a load run writes and reads.
type kind interface {
	// setup prepares the server for the kind (a CRD for widgets).
	setup(ctx context.Context, c client) error
	create(ctx context.Context, c client, ns, name, set string) error
	get(ctx context.Context, c client, ns, name string) error
	list(ctx context.Context, c client, ns, selector string) error
}

func newKind(name string, size int) (kind, error) {
	switch name {
	case "configmaps", "configmap", "":
		return configMaps{}, nil
	case "secrets", "secret":
		if size < 0 {
			return nil, fmt.Errorf("-size %d must not be negative", size)
		}
		return secrets{data: bytes.Repeat([]byte("s"), size)}, nil
	case "widgets", "widget":
		return widgets{}, nil
	}
	return nil, fmt.Errorf("unknown -kind %q: want configmaps, secrets or widgets", name)
}

// configMaps are the small objects of the store's targets (about 200
// bytes stored); set tells the pre-created objects that get and list read
// from those the create op adds.
type configMaps struct{}

func (configMaps) setup(context.Context, client) error { return nil }

func (configMaps) create(ctx context.Context, c client, ns, name, set string) error {
	_, err := c.kube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "load", "set": set}},
		Data:       map[string]string{"key": "value", "other": "a small configuration value"},
	}, metav1.CreateOptions{})
	return err
}

func (configMaps) get(ctx context.Context, c client, ns, name string) error {
	_, err := c.kube.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	return err
}

func (configMaps) list(ctx context.Context, c client, ns, selector string) error {
	_, err := c.kube.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	return err
}

// secrets carry one data key of -size bytes: what encryption at rest
// works on.
type secrets struct{ data []byte }

func (secrets) setup(context.Context, client) error { return nil }

func (s secrets) create(ctx context.Context, c client, ns, name, set string) error {
	_, err := c.kube.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "load", "set": set}},
		Data:       map[string][]byte{"data": s.data},
	}, metav1.CreateOptions{})
	return err
}

func (secrets) get(ctx context.Context, c client, ns, name string) error {
	_, err := c.kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
	return err
}

func (secrets) list(ctx context.Context, c client, ns, selector string) error {
	_, err := c.kube.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
	return err
}
