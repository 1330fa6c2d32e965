package rest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/portcullis/portcullis/internal/controllers/namespace"
)

func TestListPaginationAndSelectors(t *testing.T) {
	ts := newTestServer(t)
	for i := 0; i < 7; i++ {
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm%d","labels":{"parity":"%s"}}}`, i, []string{"even", "odd"}[i%2])
		if r := ts.do("POST", "/api/v1/namespaces/default/configmaps", mediaJSON, body); r.code != 201 {
			t.Fatalf("create: %d %s", r.code, r.body)
		}
	}
	var names []string
	cont, pages := "", 0
	for {
		r := ts.do("GET", "/api/v1/namespaces/default/configmaps?limit=3&continue="+cont, "", "")
		var l corev1.ConfigMapList
		if err := json.Unmarshal([]byte(r.body), &l); err != nil || r.code != 200 {
			t.Fatalf("list: %d %s", r.code, r.body)
		}
		pages++
		for _, it := range l.Items {
			names = append(names, it.Name)
		}
		if l.Continue == "" {
			break
		}
		if l.RemainingItemCount == nil || *l.RemainingItemCount != int64(7-len(names)) {
			t.Errorf("remainingItemCount = %v after %d items", l.RemainingItemCount, len(names))
		}
		cont = l.Continue
		// A write between pages must not show up: pages come from one snapshot.
		ts.do("POST", "/api/v1/namespaces/default/configmaps", mediaJSON, fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"late%d"}}`, pages))
	}
	if want := "cm0 cm1 cm2 cm3 cm4 cm5 cm6"; strings.Join(names, " ") != want || pages != 3 {
		t.Errorf("paged names %v in %d pages, want %s in 3", names, pages, want)
	}
	r := ts.do("GET", "/api/v1/namespaces/default/configmaps?labelSelector=parity%3Dodd&limit=2", "", "")
	var l corev1.ConfigMapList
	_ = json.Unmarshal([]byte(r.body), &l)
	if len(l.Items) != 2 || l.Items[0].Name != "cm1" || l.Items[1].Name != "cm3" || l.Continue == "" {
		t.Errorf("selected page = %+v", l.Items)
	}
	r = ts.do("GET", "/api/v1/configmaps?fieldSelector=metadata.name%3Dcm4", "", "")
	l = corev1.ConfigMapList{}
	_ = json.Unmarshal([]byte(r.body), &l)
	if len(l.Items) != 1 || l.Items[0].Name != "cm4" {
		t.Errorf("field selected = %+v", l.Items)
	}
}

func TestStatusSubresourceAndGeneration(t *testing.T) {
	ts := newTestServer(t)
	const base = "/apis/apps/v1/namespaces/default/deployments"
	dep := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":1,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}},"status":{"replicas":9}}`
	get := func() appsv1.Deployment {
		var d appsv1.Deployment
		_ = json.Unmarshal([]byte(ts.do("GET", base+"/d", "", "").body), &d)
		return d
	}
	if r := ts.do("POST", base, mediaJSON, dep); r.code != 201 {
		t.Fatalf("create: %s", r.body)
	}
	if d := get(); d.Generation != 1 || d.Status.Replicas != 0 {
		t.Errorf("after create generation=%d status.replicas=%d, want 1 and 0 (status is reset)", d.Generation, d.Status.Replicas)
	}
	ts.do("PATCH", base+"/d", mediaMergePatch, `{"metadata":{"labels":{"x":"y"}}}`)
	if d := get(); d.Generation != 1 {
		t.Errorf("metadata change bumped generation to %d", d.Generation)
	}
	ts.do("PATCH", base+"/d", mediaMergePatch, `{"spec":{"replicas":3},"status":{"replicas":5}}`)
	if d := get(); d.Generation != 2 || *d.Spec.Replicas != 3 || d.Status.Replicas != 0 {
		t.Errorf("spec patch: generation=%d replicas=%d status=%d, want 2, 3, 0", d.Generation, *d.Spec.Replicas, d.Status.Replicas)
	}
	ts.do("PATCH", base+"/d/status", mediaMergePatch, `{"spec":{"replicas":7},"status":{"replicas":5}}`)
	if d := get(); d.Generation != 2 || *d.Spec.Replicas != 3 || d.Status.Replicas != 5 {
		t.Errorf("status patch: generation=%d replicas=%d status=%d, want 2, 3, 5", d.Generation, *d.Spec.Replicas, d.Status.Replicas)
	}
	r := ts.do("PUT", base+"/d/scale", mediaJSON, `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"d","namespace":"default"},"spec":{"replicas":4}}`)
	if r.code != 200 || !strings.Contains(r.body, `"selector":"a=b"`) {
		t.Fatalf("scale: %d %s", r.code, r.body)
	}
	if d := get(); *d.Spec.Replicas != 4 || d.Generation != 3 {
		t.Errorf("after scale replicas=%d generation=%d", *d.Spec.Replicas, d.Generation)
	}
}

func TestFinalizersAndNamespaceDeletion(t *testing.T) {
	ts := newTestServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); namespace.New(ts.h.o, ts.h, discardLogger()).Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })

	ts.do("POST", "/api/v1/namespaces", mediaJSON, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"doomed"}}`)
	ts.do("POST", "/api/v1/namespaces/doomed/configmaps", mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"held","finalizers":["example.com/hold"]}}`)
	ts.do("POST", "/api/v1/namespaces/doomed/secrets", mediaJSON, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}`)
	if r := ts.do("DELETE", "/api/v1/namespaces/doomed", "", ""); r.code != 200 || !strings.Contains(r.body, `"phase":"Terminating"`) {
		t.Fatalf("delete namespace: %d %s", r.code, r.body)
	}
	if r := ts.do("POST", "/api/v1/namespaces/doomed/configmaps", mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"new"}}`); r.code != 403 ||
		!strings.Contains(r.body, "unable to create new content in namespace doomed because it is being terminated") {
		t.Errorf("create in terminating namespace: %d %s", r.code, r.body)
	}
	waitFor(t, func() bool { return ts.do("GET", "/api/v1/namespaces/doomed/secrets/s", "", "").code == 404 })
	r := ts.do("GET", "/api/v1/namespaces/doomed/configmaps/held", "", "")
	if r.code != 200 || !strings.Contains(r.body, "deletionTimestamp") {
		t.Fatalf("finalized object should wait: %d %s", r.code, r.body)
	}
	if r := ts.do("GET", "/api/v1/namespaces/doomed", "", ""); r.code != 200 {
		t.Fatalf("namespace went before its content: %d", r.code)
	}
	if r := ts.do("PATCH", "/api/v1/namespaces/doomed/configmaps/held", mediaMergePatch, `{"metadata":{"finalizers":["example.com/hold","example.com/more"]}}`); r.code != 422 {
		t.Errorf("adding a finalizer while deleting: %d %s", r.code, r.body)
	}
	ts.do("PATCH", "/api/v1/namespaces/doomed/configmaps/held", mediaMergePatch, `{"metadata":{"finalizers":null}}`)
	waitFor(t, func() bool { return ts.do("GET", "/api/v1/namespaces/doomed", "", "").code == 404 })
}

func TestWatch(t *testing.T) {
	ts := newTestServer(t)
	srv := httptest.NewServer(ts.s)
	defer srv.Close()
	r := ts.do("POST", "/api/v1/namespaces/default/configmaps", mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"before","labels":{"w":"1"}}}`)
	var created corev1.ConfigMap
	_ = json.Unmarshal([]byte(r.body), &created)

	resp, err := http.Get(srv.URL + "/api/v1/namespaces/default/configmaps?watch=true&labelSelector=w%3D1&resourceVersion=" + created.ResourceVersion)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	ts.do("POST", "/api/v1/namespaces/default/configmaps", mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"other"}}`)
	ts.do("POST", "/api/v1/namespaces/default/configmaps", mediaJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"after","labels":{"w":"1"}}}`)
	ts.do("PATCH", "/api/v1/namespaces/default/configmaps/after", mediaMergePatch, `{"data":{"a":"b"}}`)
	ts.do("PATCH", "/api/v1/namespaces/default/configmaps/before", mediaMergePatch, `{"metadata":{"labels":{"w":"0"}}}`)
	ts.do("PATCH", "/api/v1/namespaces/default/configmaps/other", mediaMergePatch, `{"metadata":{"labels":{"w":"1"}}}`)
	ts.do("DELETE", "/api/v1/namespaces/default/configmaps/after", "", "")
	want := []string{"ADDED after", "MODIFIED after", "DELETED before", "ADDED other", "DELETED after"}
	sc := bufio.NewScanner(resp.Body)
	var got []string
	for len(got) < len(want) && sc.Scan() {
		var ev struct {
			Type   string           `json:"type"`
			Object corev1.ConfigMap `json:"object"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("bad event %q: %v", sc.Text(), err)
		}
		got = append(got, ev.Type+" "+ev.Object.Name)
	}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("events %v, want %v", got, want)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
