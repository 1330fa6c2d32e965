package resourcequota

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/controllers/controllertest"
)

var quiet = slog.New(slog.DiscardHandler)

func list(pairs ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		l[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return l
}

// render makes lists comparable: amounts as canonical strings.
func render(l corev1.ResourceList) map[string]string {
	if l == nil {
		return nil
	}
	out := map[string]string{}
	for n, q := range l {
		out[string(n)] = q.String()
	}
	return out
}

// recorder records the statuses written, and fails with err.
type recorder struct {
	mu      sync.Mutex
	written []corev1.ResourceQuotaStatus
	manager string
	err     error
}

func (r *recorder) ApplyStatus(_ context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.written = append(r.written, obj.(*corev1.ResourceQuota).Status)
	r.manager = manager
	return obj, r.err
}

type env struct {
	*controllertest.Env
	t *testing.T
}

func newEnv(t *testing.T) env {
	e := env{Env: controllertest.New(t), t: t}
	e.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}})
	return e
}

func (e env) create(obj runtime.Object) {
	e.t.Helper()
	if _, err := e.API.Create(context.Background(), obj, "test"); err != nil {
		e.t.Fatal(err)
	}
}

func (e env) quota(name string) *corev1.ResourceQuota {
	e.t.Helper()
	obj, err := e.Objects.Get(context.Background(), quotasGVR, "ns", name)
	if err != nil {
		e.t.Fatal(err)
	}
	return obj.(*corev1.ResourceQuota)
}

func pod(name, cpu string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "c", Image: "busybox", Resources: corev1.ResourceRequirements{Requests: list("cpu", cpu)}}}}}
}

func configMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
}

func TestSync(t *testing.T) {
	hard := list("pods", "10", "requests.cpu", "4", "configmaps", "5", "count/deployments.apps", "2", "example.com/foo", "3")
	current := corev1.ResourceQuotaStatus{Hard: hard,
		Used: list("pods", "2", "requests.cpu", "1500m", "configmaps", "1", "count/deployments.apps", "0")}
	tests := []struct {
		name     string
		status   *corev1.ResourceQuotaStatus
		writeErr error
		// want is the status written, nil when none is.
		want    *corev1.ResourceQuotaStatus
		wantErr string
	}{{
		name: "a new quota gets hard and used",
		want: &current,
	}, {
		name:   "a current status is not written",
		status: &current,
	}, {
		name:   "a stale amount is corrected",
		status: &corev1.ResourceQuotaStatus{Hard: hard, Used: list("pods", "3", "requests.cpu", "1500m", "configmaps", "1", "count/deployments.apps", "0")},
		want:   &current,
	}, {
		name: "names no longer in hard are dropped, an amount nothing charges is kept",
		status: &corev1.ResourceQuotaStatus{Hard: hard, Used: list("pods", "2", "requests.cpu", "1500m", "configmaps", "1", "count/deployments.apps", "0",
			"secrets", "7", "example.com/foo", "1")},
		want: &corev1.ResourceQuotaStatus{Hard: hard, Used: list("pods", "2", "requests.cpu", "1500m", "configmaps", "1", "count/deployments.apps", "0",
			"example.com/foo", "1")},
	}, {
		name:   "hard follows the spec",
		status: &corev1.ResourceQuotaStatus{Hard: list("pods", "1"), Used: current.Used},
		want:   &current,
	}, {
		name:     "a failed write is returned",
		writeErr: errors.New("conflict"),
		want:     &current,
		wantErr:  "updating the status of resourcequota ns/q: conflict",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.create(&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "ns"}, Spec: corev1.ResourceQuotaSpec{Hard: hard}})
			if tt.status != nil {
				q := e.quota("q")
				q.Status = *tt.status
				if _, err := e.API.ApplyStatus(context.Background(), q, "test"); err != nil {
					t.Fatal(err)
				}
			}
			e.create(pod("a", "500m"))
			e.create(pod("b", "1"))
			e.create(configMap("m"))
			w := &recorder{err: tt.writeErr}
			c, err := New(e.Objects, w, quiet)
			if err != nil {
				t.Fatal(err)
			}
			err = c.sync(context.Background(), "ns/q")
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tt.wantErr {
				t.Errorf("error %q, want %q", gotErr, tt.wantErr)
			}
			var want []map[string]map[string]string
			if tt.want != nil {
				want = append(want, map[string]map[string]string{"hard": render(tt.want.Hard), "used": render(tt.want.Used)})
			}
			var got []map[string]map[string]string
			for _, s := range w.written {
				got = append(got, map[string]map[string]string{"hard": render(s.Hard), "used": render(s.Used)})
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("statuses written (-want +got):\n%s", d)
			}
			if len(w.written) != 0 && w.manager != Manager {
				t.Errorf("written by %q, want %q", w.manager, Manager)
			}
		})
	}
}

func TestSyncGone(t *testing.T) {
	e := newEnv(t)
	w := &recorder{}
	c, err := New(e.Objects, w, quiet)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.sync(context.Background(), "ns/gone"); err != nil {
		t.Errorf("sync of a deleted quota: %v", err)
	}
	if len(w.written) != 0 {
		t.Errorf("wrote %v for a deleted quota", w.written)
	}
}

func TestResourceOf(t *testing.T) {
	e := newEnv(t)
	c, err := New(e.Objects, &recorder{}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		key    string
		wantGR string
		wantNS string
	}{
		{key: "/registry/configmaps/ns/m", wantGR: "configmaps", wantNS: "ns"},
		{key: "/registry/deployments/other/d", wantGR: "deployments.apps", wantNS: "other"},
		{key: "/registry/services/specs/ns/s", wantGR: "services", wantNS: "ns"},
		{key: "/registry/apps/deployments/other/d"},
		{key: "/registry/pods/ns/p", wantGR: "pods", wantNS: "ns"},
		// Cluster-scoped, ignored by quota, or not an object.
		{key: "/registry/namespaces/ns"},
		{key: "/registry/events/ns/e"},
		{key: "/registry/configmaps/ns"},
		{key: "/registry/ranges/serviceips"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			res, ns, ok := c.resourceOf(tt.key)
			got := []string{"", ""}
			if ok {
				got = []string{res.GroupResource().String(), ns}
			}
			if d := cmp.Diff([]string{tt.wantGR, tt.wantNS}, got); d != "" {
				t.Errorf("resourceOf (-want +got):\n%s", d)
			}
		})
	}
}

func TestController(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.create(&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "ns"},
		Spec: corev1.ResourceQuotaSpec{Hard: list("configmaps", "5", "pods", "5", "requests.cpu", "4")}})
	// A scoped quota in the same namespace, and one elsewhere: each counts its own.
	e.create(&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "terminating", Namespace: "ns"},
		Spec: corev1.ResourceQuotaSpec{Hard: list("pods", "5"), Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeTerminating}}})
	e.create(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "other"}})
	e.create(&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "other"},
		Spec: corev1.ResourceQuotaSpec{Hard: list("configmaps", "5")}})
	e.create(configMap("a"))
	e.create(configMap("b"))
	e.create(pod("p", "1"))

	c, err := New(e.Objects, e.API, quiet)
	if err != nil {
		t.Fatal(err)
	}
	controllertest.Run(t, c.Run)

	status := func(ns, name string, hard, used corev1.ResourceList) func() (bool, string) {
		return func() (bool, string) {
			obj, err := e.Objects.Get(ctx, quotasGVR, ns, name)
			if err != nil {
				return false, err.Error()
			}
			q := obj.(*corev1.ResourceQuota)
			want := map[string]map[string]string{"hard": render(hard), "used": render(used)}
			got := map[string]map[string]string{"hard": render(q.Status.Hard), "used": render(q.Status.Used)}
			d := cmp.Diff(want, got)
			return d == "", fmt.Sprintf("status of %s/%s (-want +got):\n%s", ns, name, d)
		}
	}
	controllertest.Eventually(t, status("ns", "q", list("configmaps", "5", "pods", "5", "requests.cpu", "4"), list("configmaps", "2", "pods", "1", "requests.cpu", "1")))
	controllertest.Eventually(t, status("ns", "terminating", list("pods", "5"), list("pods", "0")))
	controllertest.Eventually(t, status("other", "q", list("configmaps", "5"), list("configmaps", "0")))

	var manager string
	for _, f := range e.quota("q").ManagedFields {
		if f.Subresource == "status" {
			manager = f.Manager
		}
	}
	if manager != Manager {
		t.Errorf("status managed by %q, want %q", manager, Manager)
	}

	// A deletion gives quota back.
	if err := e.API.Remove(ctx, schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "ns", "a"); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, status("ns", "q", list("configmaps", "5", "pods", "5", "requests.cpu", "4"), list("configmaps", "1", "pods", "1", "requests.cpu", "1")))

	// So does a pod that finished: it is counted as an object only.
	p, err := e.Objects.GetPod(ctx, "ns", "p")
	if err != nil {
		t.Fatal(err)
	}
	p.Status.Phase = corev1.PodSucceeded
	if _, err := e.API.ApplyStatus(ctx, p, "test"); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, status("ns", "q", list("configmaps", "5", "pods", "5", "requests.cpu", "4"), list("configmaps", "1", "pods", "0", "requests.cpu", "0")))

	// A changed spec.hard is taken at once.
	q := e.quota("q")
	q.Spec.Hard = list("configmaps", "3", "count/pods", "5")
	if _, err := e.API.Apply(ctx, q, "test"); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, status("ns", "q", list("configmaps", "3", "count/pods", "5"), list("configmaps", "1", "count/pods", "1")))
}

func TestReplenish(t *testing.T) {
	e := newEnv(t)
	c, err := New(e.Objects, &recorder{}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	known := func(ns, name string, statusHard corev1.ResourceList) {
		c.upsertQuota(&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Status: corev1.ResourceQuotaStatus{Hard: statusHard}})
	}
	known("ns", "pods", list("pods", "1"))
	known("ns", "cpu", list("requests.cpu", "1"))
	known("ns", "maps", list("configmaps", "1"))
	known("ns", "deployments", list("count/deployments.apps", "1"))
	// The spec is what the quota wants; status.hard is what replenishment reads.
	c.upsertQuota(&corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "unsynced"}, Spec: corev1.ResourceQuotaSpec{Hard: list("pods", "1")}})
	known("other", "pods", list("pods", "1"))
	drain := func() []string {
		var out []string
		for {
			k, ok := c.q.Next()
			if !ok {
				slices.Sort(out)
				return out
			}
			out = append(out, k)
		}
	}
	drain()
	tests := []struct {
		gr   schema.GroupResource
		ns   string
		want []string
	}{
		{gr: schema.GroupResource{Resource: "pods"}, ns: "ns", want: []string{"ns/cpu", "ns/pods"}},
		{gr: schema.GroupResource{Resource: "configmaps"}, ns: "ns", want: []string{"ns/maps"}},
		{gr: schema.GroupResource{Group: "apps", Resource: "deployments"}, ns: "ns", want: []string{"ns/deployments"}},
		{gr: schema.GroupResource{Resource: "secrets"}, ns: "ns"},
		{gr: schema.GroupResource{Resource: "pods"}, ns: "other", want: []string{"other/pods"}},
		{gr: schema.GroupResource{Resource: "pods"}, ns: "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.gr.String()+" in "+tt.ns, func(t *testing.T) {
			c.replenish(tt.gr, tt.ns)
			if d := cmp.Diff(tt.want, drain()); d != "" {
				t.Errorf("queued (-want +got):\n%s", d)
			}
		})
	}
}

func TestQuotaEvents(t *testing.T) {
	e := newEnv(t)
	c, err := New(e.Objects, &recorder{}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	rq := func(spec, status corev1.ResourceList) *corev1.ResourceQuota {
		return &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q"},
			Spec: corev1.ResourceQuotaSpec{Hard: spec}, Status: corev1.ResourceQuotaStatus{Hard: status}}
	}
	steps := []struct {
		name   string
		event  func()
		queued bool
	}{
		{name: "a new quota", event: func() { c.upsertQuota(rq(list("pods", "1"), nil)) }, queued: true},
		{name: "its status written", event: func() { c.upsertQuota(rq(list("pods", "1"), list("pods", "1"))) }},
		{name: "the same hard, written otherwise", event: func() { c.upsertQuota(rq(list("pods", "1000m"), list("pods", "1"))) }},
		{name: "spec.hard changed", event: func() { c.upsertQuota(rq(list("pods", "2"), list("pods", "1"))) }, queued: true},
		{name: "deleted", event: func() { c.deleteQuota(rq(list("pods", "2"), list("pods", "1"))) }, queued: true},
	}
	for _, s := range steps {
		s.event()
		key, ok := c.q.Next()
		if ok != s.queued || (ok && key != "ns/q") {
			t.Errorf("%s: queued %q (%v), want queued %v", s.name, key, ok, s.queued)
		}
	}
}
