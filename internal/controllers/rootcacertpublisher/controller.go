package rootcacertpublisher

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/controllers/workqueue"
	"github.com/portcullis/portcullis/internal/informer"
	"github.com/portcullis/portcullis/internal/objects"
)

// The ConfigMap the controller keeps, as kube-controller-manager names
// and describes it.
const (
	ConfigMapName         = "kube-root-ca.crt"
	DataKey               = "ca.crt"
	DescriptionAnnotation = "kubernetes.io/description"
	Description           = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
		"No other usage is guaranteed across distributions of Kubernetes clusters."
)

// Manager is the field manager of the controller's writes:
// kube-controller-manager writes without one, so the server names the
// manager after its user agent.
const Manager = "kube-controller-manager"

// Writer writes ConfigMaps through the API (the REST handler's in-process
// client); Apply of an object with a resourceVersion is a guarded update.
type Writer interface {
	Create(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
	Apply(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
}

// Reader reads the ConfigMap of a namespace from storage.
type Reader func(ctx context.Context, ns, name string) (*corev1.ConfigMap, error)

// Controller publishes the root CA bundle in every namespace.
type Controller struct {
	read       Reader
	w          Writer
	rootCA     string
	log        *slog.Logger
	metrics    *metrics
	namespaces *informer.Informer
	configMaps *informer.Informer
	q          *workqueue.Queue

	// seen holds the namespaces delivered so far, to tell a new one
	// (always synced) from a change (synced only while active).
	mu   sync.Mutex
	seen map[string]bool
}

var (
	namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

// New returns the controller publishing rootCA (kube-controller-manager's
// --root-ca-file, else the CA of its kubeconfig) over the namespaces and
// ConfigMaps in objs, its metrics registered in reg; Run starts it.
func New(objs *objects.Objects, w Writer, rootCA []byte, reg prometheus.Registerer, log *slog.Logger) (*Controller, error) {
	nsRes, ok := objs.Lookup(namespacesGVR)
	if !ok {
		return nil, fmt.Errorf("root CA cert publisher: %s is not served", namespacesGVR)
	}
	cmRes, ok := objs.Lookup(configMapsGVR)
	if !ok {
		return nil, fmt.Errorf("root CA cert publisher: %s is not served", configMapsGVR)
	}
	m, err := newMetrics(reg)
	if err != nil {
		return nil, fmt.Errorf("root CA cert publisher: registering metrics: %w", err)
	}
	read := func(ctx context.Context, ns, name string) (*corev1.ConfigMap, error) {
		obj, err := objs.Get(ctx, configMapsGVR, ns, name)
		if err != nil {
			return nil, err
		}
		cm, ok := obj.(*corev1.ConfigMap)
		if !ok {
			return nil, fmt.Errorf("configmap %s/%s is a %T", ns, name, obj)
		}
		return cm, nil
	}
	c := &Controller{read: read, w: w, rootCA: string(rootCA), log: log, metrics: m, q: workqueue.New(), seen: map[string]bool{}}
	c.namespaces = informer.New(objs.Store(), nsRes, objs.Decode, informer.HandlerFuncs{
		UpsertFunc: c.namespaceUpserted,
		DeleteFunc: func(obj runtime.Object) {
			if ns, ok := obj.(*corev1.Namespace); ok {
				c.mu.Lock()
				delete(c.seen, ns.Name)
				c.mu.Unlock()
			}
		},
	}, log)
	// Any write to the ConfigMap, or its deletion, is looked at: someone
	// may have changed what it must hold.
	onConfigMap := func(obj runtime.Object) {
		if cm, ok := obj.(*corev1.ConfigMap); ok && cm.Name == ConfigMapName {
			c.q.Add(cm.Namespace)
		}
	}
	c.configMaps = informer.New(objs.Store(), cmRes, objs.Decode, informer.HandlerFuncs{UpsertFunc: onConfigMap, DeleteFunc: onConfigMap}, log)
	return c, nil
}

// namespaceUpserted queues a namespace seen for the first time whatever
// its phase, and a changed one only while it is active, as
// kube-controller-manager's add and update handlers do.
func (c *Controller) namespaceUpserted(obj runtime.Object) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return
	}
	c.mu.Lock()
	known := c.seen[ns.Name]
	c.seen[ns.Name] = true
	c.mu.Unlock()
	if !known || ns.Status.Phase == corev1.NamespaceActive {
		c.q.Add(ns.Name)
	}
}

// Run follows namespaces and ConfigMaps and keeps the bundle published
// until ctx is done.
func (c *Controller) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { c.namespaces.Run(ctx) })
	wg.Go(func() { c.configMaps.Run(ctx) })
	c.q.Work(ctx, c.sync, func(ns string, retry time.Duration, err error) {
		c.log.Warn("root CA cert publisher: syncing namespace failed", "namespace", ns, "retry", retry, "err", err)
	})
}

// sync creates the ConfigMap of namespace ns, or brings its data and
// description back to what they must be; other labels, annotations and
// binaryData are left as they are. A create into a namespace that is
// gone or terminating is not retried.
func (c *Controller) sync(ctx context.Context, ns string) (err error) {
	start := time.Now()
	defer func() { c.metrics.observe(start, err) }()

	data := map[string]string{DataKey: c.rootCA}
	cm, err := c.read(ctx, ns, ConfigMapName)
	switch {
	case apierrors.IsNotFound(err):
		_, err = c.w.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{
				Name:        ConfigMapName,
				Namespace:   ns,
				Annotations: map[string]string{DescriptionAnnotation: Description},
			},
			Data: data,
		}, Manager)
		if apierrors.IsNotFound(err) || apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			return nil
		}
		return err
	case err != nil:
		return err
	}
	if maps.Equal(cm.Data, data) && cm.Annotations[DescriptionAnnotation] != "" {
		return nil
	}
	cm = cm.DeepCopy()
	cm.Data = data
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[DescriptionAnnotation] = Description
	_, err = c.w.Apply(ctx, cm, Manager)
	return err
}
