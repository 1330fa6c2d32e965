package rootcacertpublisher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/controllers/controllertest"
	"github.com/portcullis/portcullis/internal/controllers/workqueue"
)

var quiet = slog.New(slog.DiscardHandler)

const bundle = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n"

var configMapsGR = schema.GroupResource{Resource: "configmaps"}

// recorder is a Writer that keeps what it is asked to write and answers
// with err.
type recorder struct {
	writes []string
	objs   []*corev1.ConfigMap
	err    error
}

func (r *recorder) Create(_ context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	r.writes = append(r.writes, "create by "+manager)
	r.objs = append(r.objs, obj.(*corev1.ConfigMap))
	return obj, r.err
}

func (r *recorder) Apply(_ context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	r.writes = append(r.writes, "apply by "+manager)
	r.objs = append(r.objs, obj.(*corev1.ConfigMap))
	return obj, r.err
}

// published is the ConfigMap as the controller creates it.
func published() *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-root-ca.crt", Namespace: "a",
			Annotations: map[string]string{"kubernetes.io/description": "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."}},
		Data: map[string]string{"ca.crt": bundle},
	}
}

func stored(mutate func(*corev1.ConfigMap)) *corev1.ConfigMap {
	cm := published()
	cm.ResourceVersion = "7"
	mutate(cm)
	return cm
}

func TestSync(t *testing.T) {
	terminating := apierrors.NewForbidden(configMapsGR, "kube-root-ca.crt", errors.New("being terminated"))
	terminating.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}
	keep := func(*corev1.ConfigMap) {}
	for _, tc := range []struct {
		name      string
		existing  *corev1.ConfigMap
		readErr   error
		writeErr  error
		want      []*corev1.ConfigMap // the objects written
		wantWrite []string
		wantErr   bool
		wantCode  string
	}{
		{name: "missing", want: []*corev1.ConfigMap{published()}, wantWrite: []string{"create by kube-controller-manager"}, wantCode: "200"},
		{
			name: "missing, the namespace gone", writeErr: apierrors.NewNotFound(schema.GroupResource{Resource: "namespaces"}, "a"),
			want: []*corev1.ConfigMap{published()}, wantWrite: []string{"create by kube-controller-manager"}, wantCode: "200",
		},
		{
			name: "missing, the namespace terminating", writeErr: terminating,
			want: []*corev1.ConfigMap{published()}, wantWrite: []string{"create by kube-controller-manager"}, wantCode: "200",
		},
		{
			name: "missing, the create fails", writeErr: apierrors.NewServiceUnavailable("later"),
			want: []*corev1.ConfigMap{published()}, wantWrite: []string{"create by kube-controller-manager"}, wantErr: true, wantCode: "503",
		},
		{name: "the read fails", readErr: errors.New("boom"), wantErr: true, wantCode: "500"},
		{name: "as it should be", existing: stored(keep), wantCode: "200"},
		{
			name: "other labels, annotations and binary data are not looked at",
			existing: stored(func(cm *corev1.ConfigMap) {
				cm.Labels = map[string]string{"l": "v"}
				cm.Annotations["x"] = "y"
				cm.BinaryData = map[string][]byte{"b": {1}}
			}),
			wantCode: "200",
		},
		{
			name:     "another bundle",
			existing: stored(func(cm *corev1.ConfigMap) { cm.Data["ca.crt"] = "old"; cm.Labels = map[string]string{"l": "v"} }),
			want: []*corev1.ConfigMap{stored(func(cm *corev1.ConfigMap) {
				cm.Labels = map[string]string{"l": "v"}
			})},
			wantWrite: []string{"apply by kube-controller-manager"}, wantCode: "200",
		},
		{
			name:      "another key",
			existing:  stored(func(cm *corev1.ConfigMap) { cm.Data["extra"] = "x" }),
			want:      []*corev1.ConfigMap{stored(keep)},
			wantWrite: []string{"apply by kube-controller-manager"}, wantCode: "200",
		},
		{
			name:      "no data",
			existing:  stored(func(cm *corev1.ConfigMap) { cm.Data = nil }),
			want:      []*corev1.ConfigMap{stored(keep)},
			wantWrite: []string{"apply by kube-controller-manager"}, wantCode: "200",
		},
		{
			name:     "the description gone, another annotation kept",
			existing: stored(func(cm *corev1.ConfigMap) { cm.Annotations = map[string]string{"x": "y"} }),
			want: []*corev1.ConfigMap{stored(func(cm *corev1.ConfigMap) {
				cm.Annotations["x"] = "y"
			})},
			wantWrite: []string{"apply by kube-controller-manager"}, wantCode: "200",
		},
		{
			name:      "no annotations",
			existing:  stored(func(cm *corev1.ConfigMap) { cm.Annotations = nil }),
			want:      []*corev1.ConfigMap{stored(keep)},
			wantWrite: []string{"apply by kube-controller-manager"}, wantCode: "200",
		},
		{
			name:     "any description will do",
			existing: stored(func(cm *corev1.ConfigMap) { cm.Annotations["kubernetes.io/description"] = "mine" }),
			wantCode: "200",
		},
		{
			name:      "an empty description",
			existing:  stored(func(cm *corev1.ConfigMap) { cm.Annotations["kubernetes.io/description"] = "" }),
			want:      []*corev1.ConfigMap{stored(keep)},
			wantWrite: []string{"apply by kube-controller-manager"}, wantCode: "200",
		},
		{
			name:      "the update conflicts",
			existing:  stored(func(cm *corev1.ConfigMap) { cm.Data = nil }),
			writeErr:  apierrors.NewConflict(configMapsGR, "kube-root-ca.crt", errors.New("changed")),
			want:      []*corev1.ConfigMap{stored(keep)},
			wantWrite: []string{"apply by kube-controller-manager"}, wantErr: true, wantCode: "409",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := prometheus.NewRegistry()
			m, err := newMetrics(reg)
			if err != nil {
				t.Fatal(err)
			}
			w := &recorder{err: tc.writeErr}
			var before *corev1.ConfigMap
			if tc.existing != nil {
				before = tc.existing.DeepCopy()
			}
			c := &Controller{w: w, rootCA: bundle, log: quiet, metrics: m, q: workqueue.New(),
				read: func(_ context.Context, ns, name string) (*corev1.ConfigMap, error) {
					if ns != "a" || name != "kube-root-ca.crt" {
						t.Errorf("read %s/%s", ns, name)
					}
					if tc.readErr != nil {
						return nil, tc.readErr
					}
					if tc.existing == nil {
						return nil, apierrors.NewNotFound(configMapsGR, name)
					}
					return tc.existing, nil
				}}
			err = c.sync(context.Background(), "a")
			if (err != nil) != tc.wantErr {
				t.Errorf("error %v, want one: %t", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantWrite, w.writes); diff != "" {
				t.Errorf("writes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, w.objs, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("objects written (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tc.existing); diff != "" {
				t.Errorf("the object read was changed (-before +after):\n%s", diff)
			}
			if got := testutil.ToFloat64(m.syncs.WithLabelValues(tc.wantCode)); got != 1 {
				t.Errorf("sync_total{code=%q} = %v, want 1", tc.wantCode, got)
			}
			if got := testutil.CollectAndCount(m.syncs); got != 1 {
				t.Errorf("%d sync_total series, want 1", got)
			}
		})
	}
}

func TestMetricNames(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := newMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	m.observe(metav1.Now().Time, nil)
	const want = `
# HELP root_ca_cert_publisher_sync_total [ALPHA] Number of namespace syncs happened in root ca cert publisher.
# TYPE root_ca_cert_publisher_sync_total counter
root_ca_cert_publisher_sync_total{code="200"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "root_ca_cert_publisher_sync_total"); err != nil {
		t.Error(err)
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range families {
		names = append(names, f.GetName())
		if f.GetName() == "root_ca_cert_publisher_sync_duration_seconds" {
			h := f.GetMetric()[0].GetHistogram()
			if n := len(h.GetBucket()); n != 15 || h.GetBucket()[0].GetUpperBound() != 0.001 || h.GetBucket()[14].GetUpperBound() != 16.384 {
				t.Errorf("%d buckets from %v to %v, want 15 from 0.001 doubling", n, h.GetBucket()[0].GetUpperBound(), h.GetBucket()[n-1].GetUpperBound())
			}
		}
	}
	if diff := cmp.Diff([]string{"root_ca_cert_publisher_sync_duration_seconds", "root_ca_cert_publisher_sync_total"}, names); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

func TestController(t *testing.T) {
	env := controllertest.New(t)
	ctx := context.Background()
	configMaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	newNamespace := func(name string) {
		t.Helper()
		if _, err := env.API.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, "test"); err != nil {
			t.Fatal(err)
		}
	}
	get := func(ns string) (*corev1.ConfigMap, error) {
		obj, err := env.Objects.Get(ctx, configMaps, ns, "kube-root-ca.crt")
		if err != nil {
			return nil, err
		}
		return obj.(*corev1.ConfigMap), nil
	}
	// published waits until ns holds the bundle and description, and
	// returns the ConfigMap.
	published := func(ns string) *corev1.ConfigMap {
		t.Helper()
		var cm *corev1.ConfigMap
		controllertest.Eventually(t, func() (bool, string) {
			var err error
			cm, err = get(ns)
			if err != nil {
				return false, err.Error()
			}
			ok := cmp.Equal(map[string]string{"ca.crt": bundle}, cm.Data) && cm.Annotations[DescriptionAnnotation] == Description
			return ok, fmt.Sprintf("data %v, annotations %v", cm.Data, cm.Annotations)
		})
		return cm
	}
	newNamespace("before")
	c, err := New(env.Objects, env.API, []byte(bundle), prometheus.NewRegistry(), quiet)
	if err != nil {
		t.Fatal(err)
	}
	controllertest.Run(t, c.Run)
	published("before")
	newNamespace("after")
	cm := published("after")

	// A changed bundle is put back; what else was changed stays.
	cm.Data["ca.crt"] = "mine"
	cm.Labels = map[string]string{"keep": "me"}
	if _, err := env.API.Apply(ctx, cm, "test"); err != nil {
		t.Fatal(err)
	}
	if cm = published("after"); cm.Labels["keep"] != "me" {
		t.Errorf("labels %v, want keep=me kept", cm.Labels)
	}

	// A deleted one comes back.
	if err := env.API.Remove(ctx, configMaps, "after", "kube-root-ca.crt"); err != nil {
		t.Fatal(err)
	}
	old := cm.UID
	controllertest.Eventually(t, func() (bool, string) {
		cm, err := get("after")
		if err != nil {
			return false, err.Error()
		}
		return cm.UID != old, "the deleted ConfigMap is still there"
	})
	published("after")
}

func TestNamespaceEvents(t *testing.T) {
	c := &Controller{q: workqueue.New(), seen: map[string]bool{}}
	ns := func(name string, phase corev1.NamespacePhase) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NamespaceStatus{Phase: phase}}
	}
	drain := func() []string {
		var out []string
		for key, ok := c.q.Next(); ok; key, ok = c.q.Next() {
			out = append(out, key)
		}
		return out
	}
	// New namespaces are queued whatever their phase.
	c.namespaceUpserted(ns("active", corev1.NamespaceActive))
	c.namespaceUpserted(ns("terminating", corev1.NamespaceTerminating))
	if diff := cmp.Diff([]string{"active", "terminating"}, drain()); diff != "" {
		t.Errorf("after adds (-want +got):\n%s", diff)
	}
	// Changes only while active.
	c.namespaceUpserted(ns("terminating", corev1.NamespaceTerminating))
	c.namespaceUpserted(ns("active", corev1.NamespaceActive))
	c.namespaceUpserted(ns("active", corev1.NamespaceActive))
	if diff := cmp.Diff([]string{"active"}, drain()); diff != "" {
		t.Errorf("after updates (-want +got):\n%s", diff)
	}
}
