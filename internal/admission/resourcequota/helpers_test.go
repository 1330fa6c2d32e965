package resourcequota

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

func list(pairs ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		l[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return l
}

func render(l corev1.ResourceList) map[string]string {
	out := map[string]string{}
	for n, q := range l {
		out[string(n)] = q.String()
	}
	return out
}

func newQuota(name string, hard, used corev1.ResourceList) *corev1.ResourceQuota {
	return &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
		Spec:       corev1.ResourceQuotaSpec{Hard: hard},
		Status:     corev1.ResourceQuotaStatus{Hard: hard, Used: used},
	}
}

// store is a fake of the quota store: status writes are checked against
// the resourceVersion, as the real store checks them.
type store struct {
	mu     sync.Mutex
	rv     int
	quotas map[string]*corev1.ResourceQuota
	// beforeWrite runs (unlocked) before each status write; a test uses
	// it to be a concurrent writer.
	beforeWrite func(s *store, q *corev1.ResourceQuota)
	writes      int
}

func newStore(qs ...*corev1.ResourceQuota) *store {
	s := &store{quotas: map[string]*corev1.ResourceQuota{}}
	for _, q := range qs {
		s.put(q)
	}
	return s
}

func (s *store) put(q *corev1.ResourceQuota) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv++
	c := q.DeepCopy()
	c.ResourceVersion = strconv.Itoa(s.rv)
	s.quotas[c.Name] = c
}

func (s *store) get(name string) *corev1.ResourceQuota {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.quotas[name].DeepCopy()
}

func (s *store) List(_ context.Context, ns string) ([]*corev1.ResourceQuota, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*corev1.ResourceQuota
	for _, q := range s.quotas {
		if q.Namespace == ns {
			out = append(out, q.DeepCopy())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (s *store) UpdateStatus(_ context.Context, q *corev1.ResourceQuota) (*corev1.ResourceQuota, error) {
	if s.beforeWrite != nil {
		s.beforeWrite(s, q)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur, ok := s.quotas[q.Name]
	if !ok {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "resourcequotas"}, q.Name)
	}
	if cur.ResourceVersion != q.ResourceVersion {
		return nil, apierrors.NewConflict(schema.GroupResource{Resource: "resourcequotas"}, q.Name,
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	s.writes++
	s.rv++
	c := cur.DeepCopy()
	c.Status = *q.Status.DeepCopy()
	c.ResourceVersion = strconv.Itoa(s.rv)
	s.quotas[q.Name] = c
	return c.DeepCopy(), nil
}

func attrs(op admission.Operation, resource, sub string, obj, old runtime.Object) *admission.Attributes {
	kinds := map[string]string{"pods": "Pod", "services": "Service", "persistentvolumeclaims": "PersistentVolumeClaim", "configmaps": "ConfigMap"}
	name := "x"
	if m, ok := obj.(metav1.Object); ok && m.GetName() != "" {
		name = m.GetName()
	}
	return &admission.Attributes{
		Kind:     schema.GroupVersionKind{Version: "v1", Kind: kinds[resource]},
		Resource: schema.GroupVersionResource{Version: "v1", Resource: resource},
		Name:     name, Namespace: "ns", Operation: op, Subresource: sub, Object: obj, OldObject: old,
	}
}

func podOf(name string, requests, limits corev1.ResourceList) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
		Name: "c", Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}}}}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// code is the HTTP code of an API error; 0 for any other error.
func code(err error) int32 {
	if s, ok := err.(apierrors.APIStatus); ok {
		return s.Status().Code
	}
	return 0
}
