package policytest

import (
	"context"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission/policy/params"
)

// Store holds namespaces and param objects; its Namespace method is a
// matching.NamespaceGetter and it is a params.Source. Not safe for
// concurrent changes.
type Store struct {
	// GetErr, when set, fails every Get.
	GetErr error

	namespaces map[string]*corev1.Namespace
	objects    map[schema.GroupVersionKind][]runtime.Object
	namespaced map[schema.GroupVersionKind]bool
}

var _ params.Source = (*Store)(nil)

// NewStore returns a store with the namespace "default" and ConfigMaps
// as a param kind.
func NewStore() *Store {
	s := &Store{
		namespaces: map[string]*corev1.Namespace{},
		objects:    map[schema.GroupVersionKind][]runtime.Object{},
		namespaced: map[schema.GroupVersionKind]bool{ConfigMapGVK: true},
	}
	s.AddNamespace("default", nil)
	return s
}

// AddNamespace adds a namespace with the given labels and, as the API
// server sets it, kubernetes.io/metadata.name.
func (s *Store) AddNamespace(name string, lbls map[string]string) {
	all := map[string]string{"kubernetes.io/metadata.name": name}
	maps.Copy(all, lbls)
	s.namespaces[name] = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: all}}
}

// AddKind declares a param kind and its scope.
func (s *Store) AddKind(kind schema.GroupVersionKind, namespaced bool) {
	s.namespaced[kind] = namespaced
}

// Add adds a param object of kind.
func (s *Store) Add(kind schema.GroupVersionKind, obj runtime.Object) {
	s.objects[kind] = append(s.objects[kind], obj)
}

// Namespace returns a namespace, or NotFound.
func (s *Store) Namespace(_ context.Context, name string) (*corev1.Namespace, error) {
	if ns, ok := s.namespaces[name]; ok {
		return ns, nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, name)
}

// Namespaced implements params.Source.
func (s *Store) Namespaced(kind schema.GroupVersionKind) (bool, error) {
	n, ok := s.namespaced[kind]
	if !ok {
		return false, params.ErrUnknownKind
	}
	return n, nil
}

// Get implements params.Source.
func (s *Store) Get(_ context.Context, kind schema.GroupVersionKind, namespace, name string) (runtime.Object, error) {
	if s.GetErr != nil {
		return nil, s.GetErr
	}
	for _, o := range s.objects[kind] {
		m, _ := meta.Accessor(o)
		if m.GetNamespace() == namespace && m.GetName() == name {
			return o, nil
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: kind.Group, Resource: kind.Kind}, name)
}

// List implements params.Source.
func (s *Store) List(_ context.Context, kind schema.GroupVersionKind, namespace string, sel labels.Selector) ([]runtime.Object, error) {
	var out []runtime.Object
	for _, o := range s.objects[kind] {
		m, _ := meta.Accessor(o)
		if (namespace == "" || m.GetNamespace() == namespace) && sel.Matches(labels.Set(m.GetLabels())) {
			out = append(out, o)
		}
	}
	return out, nil
}
