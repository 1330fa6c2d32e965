package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/portcullis/portcullis/internal/request"
)

// do sends one request with info through the registry's middleware.
func do(r *Registry, method, url string, info *request.Info, h http.HandlerFunc) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, url, nil)
	if info != nil {
		req = req.WithContext(request.WithState(req.Context(), &request.State{Info: info}))
	}
	w := httptest.NewRecorder()
	r.Middleware(h).ServeHTTP(w, req)
	return w
}

func status(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) }
}

func TestMiddlewareCounts(t *testing.T) {
	r := NewRegistry()
	do(r, "GET", "/api/v1/namespaces/a/pods/p", res("get", "", "pods", "", "a", "p"), status(200))
	do(r, "GET", "/api/v1/namespaces/a/pods/p", res("get", "", "pods", "", "a", "p"), status(200))
	do(r, "GET", "/api/v1/namespaces/a/pods/q", res("get", "", "pods", "", "a", "q"), status(404))
	do(r, "GET", "/api/v1/pods", res("list", "", "pods", "", "", ""), func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("{}")) })
	do(r, "POST", "/apis/apps/v1/namespaces/a/deployments?dryRun=All", res("create", "apps", "deployments", "", "a", ""), status(201))
	do(r, "PATCH", "/apis/apps/v1/namespaces/a/deployments/d/scale", res("patch", "apps", "deployments", "scale", "a", "d"), status(200))
	do(r, "GET", "/healthz", &request.Info{Verb: "get", Path: "/healthz"}, func(http.ResponseWriter, *http.Request) {})
	do(r, "GET", "/version", nil, status(200)) // no request state

	want := `
# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="",verb="GET",version=""} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="cluster",subresource="",verb="LIST",version="v1"} 1
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="GET",version="v1"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="scale",verb="PATCH",version="v1"} 1
apiserver_request_total{code="201",component="apiserver",dry_run="All",group="apps",resource="deployments",scope="resource",subresource="",verb="POST",version="v1"} 1
apiserver_request_total{code="404",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="GET",version="v1"} 1
`
	if err := testutil.GatherAndCompare(r.Gatherer(), strings.NewReader(want), "apiserver_request_total"); err != nil {
		t.Error(err)
	}
	// One observation per request, in the histogram's series without code.
	if n := testutil.CollectAndCount(r.latency); n != 5 {
		t.Errorf("%d duration series, want 5", n)
	}
	if got := histogramCount(t, r, "GET", "pods", "resource"); got != 3 {
		t.Errorf("GET pods observations = %d, want 3", got)
	}
}

// histogramCount returns the sample count of a request duration series.
func histogramCount(t *testing.T, r *Registry, verb, resource, scope string) uint64 {
	t.Helper()
	mfs, err := r.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "apiserver_request_duration_seconds" {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			want := map[string]string{"verb": verb, "resource": resource, "scope": scope}
			for _, l := range m.GetLabel() {
				if v, ok := want[l.GetName()]; ok && v != l.GetValue() {
					continue next
				}
			}
			return m.GetHistogram().GetSampleCount()
		}
	}
	return 0
}

func TestDurationBuckets(t *testing.T) {
	r := NewRegistry()
	do(r, "GET", "/healthz", &request.Info{Verb: "get", Path: "/healthz"}, status(200))
	out := scrape(t, r)
	for _, line := range []string{
		`# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.`,
		`# TYPE apiserver_request_duration_seconds histogram`,
		`apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="",scope="",subresource="",verb="GET",version="",le="0.005"} 1`,
		`le="1.25"}`, `le="45"}`, `le="60"} 1`, `le="+Inf"} 1`,
		`apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="",resource="",scope="",subresource="",verb="GET",version=""} 1`,
	} {
		if !strings.Contains(out, line) {
			t.Errorf("/metrics lacks %s", line)
		}
	}
	if n := strings.Count(out, "apiserver_request_duration_seconds_bucket{"); n != 24 {
		t.Errorf("%d buckets, want kube-apiserver's 23 and +Inf", n)
	}
}

func scrape(t *testing.T, r *Registry) string {
	t.Helper()
	w := httptest.NewRecorder()
	r.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	if w.Code != 200 {
		t.Fatalf("/metrics: %d", w.Code)
	}
	return w.Body.String()
}

func TestHandlerHasRuntimeMetrics(t *testing.T) {
	out := scrape(t, NewRegistry())
	for _, name := range []string{"go_goroutines", "go_memstats_alloc_bytes", "process_cpu_seconds_total", "process_open_fds", "apiserver_current_inflight_requests"} {
		if !strings.Contains(out, "\n# TYPE "+name+" ") {
			t.Errorf("/metrics lacks %s", name)
		}
	}
}

func TestMiddlewarePanicCounts500(t *testing.T) {
	r := NewRegistry()
	func() {
		defer func() { recover() }()
		do(r, "DELETE", "/api/v1/namespaces/a/pods/p", res("delete", "", "pods", "", "a", "p"), func(http.ResponseWriter, *http.Request) { panic("boom") })
	}()
	want := `
# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.
# TYPE apiserver_request_total counter
apiserver_request_total{code="500",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="DELETE",version="v1"} 1
`
	if err := testutil.GatherAndCompare(r.Gatherer(), strings.NewReader(want), "apiserver_request_total"); err != nil {
		t.Error(err)
	}
	if r.mutating.cur.Load() != 0 {
		t.Error("a panicking request stays in flight")
	}
}

func TestMiddlewareWatch(t *testing.T) {
	r := NewRegistry()
	info := res("watch", "", "pods", "", "a", "")
	gauge := r.longRunning.WithLabelValues("WATCH", "", "v1", "pods", "", "namespace", "apiserver")
	do(r, "GET", "/api/v1/namespaces/a/pods?watch=true", info, func(w http.ResponseWriter, _ *http.Request) {
		if got := testutil.ToFloat64(gauge); got != 1 {
			t.Errorf("apiserver_longrunning_requests = %v during the watch", got)
		}
		if r.readOnly.cur.Load() != 0 {
			t.Error("a watch counts as in flight")
		}
		f, ok := w.(http.Flusher)
		if !ok {
			t.Fatal("the metrics writer hides http.Flusher")
		}
		io.WriteString(w, `{"type":"ADDED"}`)
		f.Flush()
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("ResponseController cannot flush: %v", err)
		}
	})
	if got := testutil.ToFloat64(gauge); got != 0 {
		t.Errorf("apiserver_longrunning_requests = %v after the watch", got)
	}
	if got := testutil.ToFloat64(r.requests.WithLabelValues("WATCH", "", "", "v1", "pods", "", "namespace", "apiserver", "200")); got != 1 {
		t.Errorf("watch count = %v", got)
	}
}

func TestInflight(t *testing.T) {
	r := NewRegistry()
	var during string
	do(r, "GET", "/api/v1/pods", res("list", "", "pods", "", "", ""), func(http.ResponseWriter, *http.Request) {
		do(r, "POST", "/api/v1/namespaces/a/pods", res("create", "", "pods", "", "a", ""), func(http.ResponseWriter, *http.Request) {
			during = scrape(t, r)
		})
	})
	for _, line := range []string{
		`apiserver_current_inflight_requests{request_kind="readOnly"} 1`,
		`apiserver_current_inflight_requests{request_kind="mutating"} 1`,
	} {
		if !strings.Contains(during, line) {
			t.Errorf("while serving, /metrics lacks %s", line)
		}
	}

	g := &inflight{}
	t0 := time.Now()
	g.inc()
	g.inc()
	g.inc()
	g.dec()
	g.dec()
	if got := g.take(t0); got != 3 {
		t.Errorf("peak = %d, want 3", got)
	}
	if got := g.take(t0.Add(window / 2)); got != 3 {
		t.Errorf("within the window, peak = %d, want 3", got)
	}
	if got := g.take(t0.Add(window)); got != 1 {
		t.Errorf("next window starts at the current count: %d, want 1", got)
	}
	g.dec()
	if got := g.take(t0.Add(3 * window)); got != 1 {
		t.Errorf("the window keeps its peak: %d, want 1", got)
	}
	if got := g.take(t0.Add(5 * window)); got != 0 {
		t.Errorf("idle: %d, want 0", got)
	}
}

func TestResourceCap(t *testing.T) {
	r := NewRegistry()
	r.maxResources = 2
	for _, name := range []string{"a", "b", "c", "d", "a"} {
		do(r, "GET", "/apis/x.io/v1/"+name, res("list", "x.io", name, "", "", ""), status(200))
	}
	want := `
# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="other",scope="cluster",subresource="",verb="LIST",version=""} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="x.io",resource="a",scope="cluster",subresource="",verb="LIST",version="v1"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="x.io",resource="b",scope="cluster",subresource="",verb="LIST",version="v1"} 1
`
	if err := testutil.GatherAndCompare(r.Gatherer(), strings.NewReader(want), "apiserver_request_total"); err != nil {
		t.Error(err)
	}
}

func TestPrometheusRegisterer(t *testing.T) {
	r := NewRegistry()
	if err := r.Prometheus().Register(newTestCounter()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(scrape(t, r), "portcullis_test_total 0") {
		t.Error("a metric registered through Prometheus() is not served")
	}
}

func newTestCounter() prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: "portcullis_test_total", Help: "test"})
}

func BenchmarkMiddleware(b *testing.B) {
	r := NewRegistry()
	h := r.Middleware(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }))
	req := httptest.NewRequest("GET", "/api/v1/namespaces/a/pods/p", nil)
	req = req.WithContext(request.WithState(req.Context(), &request.State{Info: res("get", "", "pods", "", "a", "p")}))
	w := discard{}
	b.ReportAllocs()
	for b.Loop() {
		h.ServeHTTP(w, req)
	}
}

type discard struct{}

func (discard) Header() http.Header         { return nil }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}
