package e2e

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/version"
	"k8s.io/client-go/rest"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// do sends one request and returns the status code and body.
func do(t *testing.T, c *http.Client, method, url, contentType string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return resp.StatusCode, data
}

// expectStatus checks that body is a metav1.Status with the code and reason.
func expectStatus(t *testing.T, code int, body []byte, wantCode int, wantReason metav1.StatusReason) {
	t.Helper()
	if code != wantCode {
		t.Errorf("HTTP %d, want %d; body %s", code, wantCode, body)
		return
	}
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil || st.Kind != "Status" {
		t.Errorf("body is not a Status (%v): %s", err, body)
		return
	}
	if int(st.Code) != wantCode || st.Reason != wantReason || st.Status != metav1.StatusFailure || st.Message == "" {
		t.Errorf("Status code %d reason %q status %q message %q, want %d %q Failure with a message", st.Code, st.Reason, st.Status, st.Message, wantCode, wantReason)
	}
}

func TestHTTPHealth(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	c := s.HTTPClient(t)

	for _, path := range []string{"/healthz", "/livez", "/readyz"} {
		t.Run(path, func(t *testing.T) {
			code, body := do(t, c, "GET", s.URL+path, "", nil)
			if code != 200 || string(body) != "ok" {
				t.Errorf("GET %s = %d %q, want 200 ok", path, code, body)
			}

			code, body = do(t, c, "GET", s.URL+path+"?verbose", "", nil)
			text := string(body)
			if code != 200 || !strings.HasSuffix(strings.TrimSpace(text), strings.TrimPrefix(path, "/")+" check passed") {
				t.Fatalf("GET %s?verbose = %d:\n%s\nwant 200 ending in %q", path, code, text, strings.TrimPrefix(path, "/")+" check passed")
			}
			var checks []string
			for _, l := range lines(text) {
				if name, ok := strings.CutPrefix(l, "[+]"); ok {
					checks = append(checks, strings.TrimSuffix(name, " ok"))
				}
			}
			if len(checks) == 0 {
				t.Fatalf("GET %s?verbose names no checks:\n%s", path, text)
			}

			excluded := checks[0]
			code, body = do(t, c, "GET", s.URL+path+"?verbose&exclude="+excluded, "", nil)
			if want := "[+]" + excluded + " excluded: ok"; code != 200 || !strings.Contains(string(body), want) {
				t.Errorf("GET %s?verbose&exclude=%s = %d:\n%s\nwant a line %q", path, excluded, code, body, want)
			}

			code, body = do(t, c, "GET", s.URL+path+"/"+excluded, "", nil)
			if code != 200 || string(body) != "ok" {
				t.Errorf("GET %s/%s = %d %q, want 200 ok", path, excluded, code, body)
			}
			code, _ = do(t, c, "GET", s.URL+path+"/no-such-check", "", nil)
			if code != 404 {
				t.Errorf("GET %s/no-such-check = %d, want 404", path, code)
			}
		})
	}
}

func TestHTTPVersionAndDiscovery(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	c := s.HTTPClient(t)

	t.Run("/version", func(t *testing.T) {
		code, body := do(t, c, "GET", s.URL+"/version", "", nil)
		var v version.Info
		if err := json.Unmarshal(body, &v); code != 200 || err != nil {
			t.Fatalf("GET /version = %d %s (%v)", code, body, err)
		}
		if !strings.HasPrefix(v.GitVersion, "v") || !strings.HasPrefix(v.GoVersion, "go") || v.Platform != runtime.GOOS+"/"+runtime.GOARCH {
			t.Errorf("/version = %+v, want a v-prefixed gitVersion, goVersion and platform %s/%s", v, runtime.GOOS, runtime.GOARCH)
		}
	})

	t.Run("discovery and openapi documents", func(t *testing.T) {
		for _, path := range []string{"/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/openapi/v2", "/openapi/v3", "/openapi/v3/api/v1"} {
			code, body := do(t, c, "GET", s.URL+path, "", nil)
			if code != 200 || !json.Valid(body) {
				t.Errorf("GET %s = %d, valid JSON %t", path, code, json.Valid(body))
			}
		}
	})

	t.Run("HTTP/2 and HTTP/1.1", func(t *testing.T) {
		resp, err := c.Get(s.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.ProtoMajor != 2 {
			t.Errorf("client-go's transport spoke %s, want HTTP/2", resp.Proto)
		}
		tlsConfig, err := rest.TLSConfigFor(s.RESTConfig(t))
		if err != nil {
			t.Fatal(err)
		}
		h1 := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig, TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{}}}
		resp, err = h1.Get(s.URL + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.ProtoMajor != 1 || resp.StatusCode != 200 {
			t.Errorf("HTTP/1.1 client got %s %d", resp.Proto, resp.StatusCode)
		}
	})

	t.Run("no client certificate, no access", func(t *testing.T) {
		cfg := s.RESTConfig(t)
		anon := rest.AnonymousClientConfig(cfg)
		hc, err := rest.HTTPClientFor(anon)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := hc.Get(s.URL + "/api/v1/namespaces/default/secrets")
		if err != nil {
			return // refused in the TLS handshake: fine
		}
		resp.Body.Close()
		if resp.StatusCode != 401 && resp.StatusCode != 403 {
			t.Errorf("listing secrets without a client certificate: HTTP %d, want 401 or 403", resp.StatusCode)
		}
	})

	t.Run("plain HTTP is not served", func(t *testing.T) {
		plain := "http://" + strings.TrimPrefix(s.URL, "https://") + "/api/v1/namespaces"
		resp, err := http.Get(plain)
		if err != nil {
			return
		}
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("GET %s = %d, want an error", plain, resp.StatusCode)
		}
	})
}

func TestHTTPBadRequests(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	c := s.HTTPClient(t)
	cms := s.URL + "/api/v1/namespaces/default/configmaps"

	t.Run("a body over 3 MiB is 413", func(t *testing.T) {
		big := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"k":"` + strings.Repeat("x", 3<<20) + `"}}`
		code, body := do(t, c, "POST", cms, "application/json", []byte(big))
		expectStatus(t, code, body, http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge)
	})

	tests := []struct {
		name        string
		method, url string
		contentType string
		body        string
		code        int
		reason      metav1.StatusReason
	}{
		{"malformed JSON", "POST", cms, "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":`, 400, metav1.StatusReasonBadRequest},
		{"a field of the wrong type", "POST", cms, "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":5}}`, 400, metav1.StatusReasonBadRequest},
		{"another kind", "POST", cms, "application/json", `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"}}`, 400, metav1.StatusReasonBadRequest},
		{"an unsupported patch type", "PATCH", cms + "/x", "text/plain", `{}`, 415, metav1.StatusReasonUnsupportedMediaType},
		{"a name that does not match the URL", "PUT", cms + "/a", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"b"}}`, 400, metav1.StatusReasonBadRequest},
		{"a bad label selector", "GET", cms + "?labelSelector=a%20%3D%3D%3D%20b", "", "", 400, metav1.StatusReasonBadRequest},
		{"an unknown resource", "GET", s.URL + "/api/v1/nosuchthings", "", "", 404, metav1.StatusReasonNotFound},
		{"delete of a missing object", "DELETE", cms + "/missing", "", "", 404, metav1.StatusReasonNotFound},
		{"a namespaced object in a missing namespace", "POST", s.URL + "/api/v1/namespaces/nope/configmaps", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`, 404, metav1.StatusReasonNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body []byte
			if tt.body != "" {
				body = []byte(tt.body)
			}
			code, resp := do(t, c, tt.method, tt.url, tt.contentType, body)
			expectStatus(t, code, resp, tt.code, tt.reason)
		})
	}

	t.Run("still serving", func(t *testing.T) {
		if code, body := do(t, c, "GET", s.URL+"/readyz", "", nil); code != 200 {
			t.Errorf("/readyz after the bad requests: %d %s", code, body)
		}
	})
}

func TestHTTPMetrics(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	c := s.HTTPClient(t)
	// One request of each scope, so each has a counted series.
	do(t, c, "GET", s.URL+"/api/v1/namespaces", "", nil)
	do(t, c, "GET", s.URL+"/api/v1/namespaces/default/configmaps", "", nil)
	do(t, c, "GET", s.URL+"/api/v1/namespaces/default/configmaps/missing", "", nil)
	// A request authorization refuses is not counted, as in
	// kube-apiserver (whose instrumented handlers it never reaches); the
	// allowed request after it is, so the metrics are current.
	forbidden, _ := http.NewRequest("GET", s.URL+"/api/v1/namespaces/default/secrets", nil)
	forbidden.Header.Set("Impersonate-User", "nobody")
	resp, err := c.Do(forbidden)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("impersonating nobody: %d, want 403", resp.StatusCode)
	}
	do(t, c, "GET", s.URL+"/api/v1/namespaces/default/secrets", "", nil)

	code, body := do(t, c, "GET", s.URL+"/metrics", "", nil)
	if code != 200 {
		t.Fatalf("GET /metrics = %d", code)
	}
	series := parseMetrics(t, body)
	want := []map[string]string{
		{"verb": "LIST", "group": "", "version": "v1", "resource": "namespaces", "subresource": "", "scope": "cluster", "component": "apiserver", "code": "200"},
		{"verb": "LIST", "group": "", "version": "v1", "resource": "configmaps", "subresource": "", "scope": "namespace", "component": "apiserver", "code": "200"},
		{"verb": "GET", "group": "", "version": "v1", "resource": "configmaps", "subresource": "", "scope": "resource", "component": "apiserver", "code": "404"},
	}
	for _, labels := range want {
		if v, ok := findSeries(series, "apiserver_request_total", labels); !ok || v < 1 {
			t.Errorf("no apiserver_request_total series with %v (value %v)", labels, v)
		}
	}
	secrets := map[string]string{"verb": "LIST", "resource": "secrets", "scope": "namespace", "code": "200"}
	if v, ok := findSeries(series, "apiserver_request_total", secrets); !ok || v != 1 {
		t.Errorf("apiserver_request_total%v = %v, want the one allowed list", secrets, v)
	}
	secrets["code"] = "403"
	if v, ok := findSeries(series, "apiserver_request_total", secrets); ok {
		t.Errorf("apiserver_request_total%v = %v: the refused list was counted", secrets, v)
	}
	if _, ok := findSeries(series, "apiserver_request_duration_seconds_bucket", map[string]string{"verb": "LIST", "resource": "namespaces"}); !ok {
		t.Errorf("no apiserver_request_duration_seconds_bucket series for LIST namespaces")
	}
}

// sample is one line of the Prometheus text format.
type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// parseMetrics reads the Prometheus text format: name{l="v",...} value.
func parseMetrics(t *testing.T, body []byte) []sample {
	t.Helper()
	var out []sample
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		smp := sample{labels: map[string]string{}}
		rest := line
		if i := strings.IndexByte(line, '{'); i >= 0 {
			smp.name = line[:i]
			rest = line[i+1:]
			for !strings.HasPrefix(rest, "}") {
				eq := strings.IndexByte(rest, '=')
				if eq < 0 {
					t.Fatalf("bad metrics line %q", line)
				}
				key := rest[:eq]
				quoted, err := strconv.QuotedPrefix(rest[eq+1:])
				if err != nil {
					t.Fatalf("bad metrics line %q: %v", line, err)
				}
				smp.labels[key], _ = strconv.Unquote(quoted)
				rest = strings.TrimPrefix(rest[eq+1+len(quoted):], ",")
			}
			rest = rest[1:]
		} else {
			smp.name, rest, _ = strings.Cut(line, " ")
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			t.Fatalf("bad metrics line %q", line)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			t.Fatalf("bad metrics value in %q: %v", line, err)
		}
		smp.value = v
		out = append(out, smp)
	}
	return out
}

// findSeries returns the value of the first series named name whose labels
// include all of labels.
func findSeries(samples []sample, name string, labels map[string]string) (float64, bool) {
next:
	for _, s := range samples {
		if s.name != name {
			continue
		}
		for k, v := range labels {
			if got, ok := s.labels[k]; !ok || got != v {
				continue next
			}
		}
		return s.value, true
	}
	return 0, false
}
