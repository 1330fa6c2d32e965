package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	clocktesting "k8s.io/utils/clock/testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// env is a webhook server and an authorizer that talks to it.
type env struct {
	hook    *fakeWebhook
	az      *Authorizer
	metrics *Metrics
	reg     *prometheus.Registry
	clock   *clocktesting.FakeClock
}

func newEnv(t *testing.T, mutate func(*Config)) *env {
	t.Helper()
	p := newPKI(t)
	hook := newFakeWebhook(t, p)
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(time.Unix(1_700_000_000, 0))
	cfg := Config{
		Name:            "policy",
		KubeConfigFile:  kubeconfig(t, p, hook.srv.URL+"/authorize", true, ""),
		Version:         "v1",
		Timeout:         2 * time.Second,
		AuthorizedTTL:   5 * time.Minute,
		UnauthorizedTTL: 30 * time.Second,
		FailurePolicy:   apiserverv1.FailurePolicyNoOpinion,
		Backoff:         fastBackoff(3),
		Metrics:         m,
		Clock:           clk,
	}
	if mutate != nil {
		mutate(&cfg)
	}
	az, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &env{hook: hook, az: az, metrics: m, reg: reg, clock: clk}
}

func TestDecisions(t *testing.T) {
	tests := []struct {
		name       string
		version    string
		answer     http.HandlerFunc
		want       authorizer.Decision
		wantReason string
		wantErr    error
	}{
		{"allow", "v1", allowWith("ok by policy"), authorizer.DecisionAllow, "ok by policy", nil},
		{"deny", "v1", status(authorizationv1.SubjectAccessReviewStatus{Denied: true, Reason: "no"}), authorizer.DecisionDeny, "no", nil},
		{"no opinion", "v1", status(authorizationv1.SubjectAccessReviewStatus{Reason: "dunno"}), authorizer.DecisionNoOpinion, "dunno", nil},
		{"allowed and denied", "v1", status(authorizationv1.SubjectAccessReviewStatus{Allowed: true, Denied: true, Reason: "both"}), authorizer.DecisionDeny, "both", ErrAllowedAndDenied},
		{"evaluation error does not change the decision", "v1", status(authorizationv1.SubjectAccessReviewStatus{Allowed: true, EvaluationError: "partial"}), authorizer.DecisionAllow, "", nil},
		{"v1beta1 allow", "v1beta1", raw(200, `{"apiVersion":"authorization.k8s.io/v1beta1","kind":"SubjectAccessReview","status":{"allowed":true,"reason":"beta"}}`), authorizer.DecisionAllow, "beta", nil},
		{"v1beta1 deny", "v1beta1", raw(200, `{"apiVersion":"authorization.k8s.io/v1beta1","kind":"SubjectAccessReview","status":{"allowed":false,"denied":true}}`), authorizer.DecisionDeny, "", nil},
		{"no apiVersion or kind", "v1", raw(200, `{"status":{"allowed":true}}`), authorizer.DecisionAllow, "", nil},
		{"unknown fields ignored", "v1", raw(200, `{"status":{"allowed":true,"future":1},"extra":[]}`), authorizer.DecisionAllow, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, func(c *Config) { c.Version = tt.version })
			e.hook.setAnswer(tt.answer)
			d, reason, err := e.az.Authorize(background, podsList("alice"))
			if d != tt.want || reason != tt.wantReason || !errors.Is(err, tt.wantErr) {
				t.Fatalf("got (%v, %q, %v), want (%v, %q, %v)", d, reason, err, tt.want, tt.wantReason, tt.wantErr)
			}
			if got := testutil.ToFloat64(e.metrics.evaluations.WithLabelValues("policy", "success")); got != 1 {
				t.Errorf("evaluations{success} = %v, want 1", got)
			}
		})
	}
}

// TestReviewBody checks the review sent, field for field, against goldens.
func TestReviewBody(t *testing.T) {
	fieldSel, err := fields.ParseSelector("spec.nodeName=node-1,metadata.name!=skip")
	if err != nil {
		t.Fatal(err)
	}
	labelSel, err := labels.Parse("app in (web,api),!legacy,tier=front,replicas>2")
	if err != nil {
		t.Fatal(err)
	}
	labelReqs, _ := labelSel.Requirements()
	resource := authorizer.AttributesRecord{
		User: &user.DefaultInfo{
			Name: "alice", UID: "42", Groups: []string{"dev", "system:authenticated"},
			Extra: map[string][]string{"scopes": {"a", "b"}},
		},
		Verb: "list", Namespace: "prod", APIGroup: "apps", APIVersion: "v1",
		Resource: "deployments", Subresource: "scale", Name: "web", ResourceRequest: true,
		FieldSelectorRequirements: fieldSel.Requirements(),
		LabelSelectorRequirements: labelReqs,
	}
	cases := []struct {
		golden  string
		version string
		attrs   authorizer.Attributes
	}{
		{"review_v1_resource.json", "v1", resource},
		{"review_v1beta1_resource.json", "v1beta1", resource},
		{"review_v1_nonresource.json", "v1", healthz("bob")},
		{"review_v1beta1_nonresource.json", "v1beta1", healthz("bob")},
	}
	for _, c := range cases {
		t.Run(c.golden, func(t *testing.T) {
			e := newEnv(t, func(cfg *Config) { cfg.Version = c.version })
			if _, _, err := e.az.Authorize(background, c.attrs); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := json.Indent(&buf, e.hook.lastReview(), "", "  "); err != nil {
				t.Fatal(err)
			}
			buf.WriteByte('\n')
			compareGolden(t, c.golden, buf.Bytes())
			if ct := e.hook.header("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}
}

func compareGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", name, d)
	}
}

func TestFailurePolicy(t *testing.T) {
	huge := `{"status":{"allowed":true,"reason":"` + strings.Repeat("x", maxResponseBytes) + `"}}`
	tests := []struct {
		name      string
		answer    http.HandlerFunc
		wantCalls int64
		wantErr   error
		result    string
	}{
		{"garbage", raw(200, "<html>hello</html>"), 1, ErrResponse, "error"},
		{"truncated json", raw(200, `{"status":{"allowed":tr`), 1, ErrResponse, "error"},
		{"json null", raw(200, `null`), 1, ErrResponse, "error"},
		{"json array", raw(200, `[]`), 1, ErrResponse, "error"},
		{"wrong type", raw(200, `{"status":{"allowed":"yes"}}`), 1, ErrResponse, "error"},
		{"wrong kind", raw(200, `{"apiVersion":"v1","kind":"Status","status":"Failure"}`), 1, ErrResponse, "error"},
		{"wrong group", raw(200, `{"apiVersion":"example.com/v1","kind":"SubjectAccessReview","status":{"allowed":true}}`), 1, ErrResponse, "error"},
		{"too large", raw(200, huge), 1, ErrResponse, "error"},
		{"500 retried", raw(500, "boom"), 3, ErrRequest, "error"},
		{"502 retried", raw(502, ""), 3, ErrRequest, "error"},
		{"429 retried", raw(429, ""), 3, ErrRequest, "error"},
		{"504 retried as timeout", raw(504, ""), 3, ErrRequest, "timeout"},
		{"503 without Retry-After not retried", raw(503, ""), 1, ErrRequest, "error"},
		{"403 not retried", raw(403, `{"kind":"Status"}`), 1, ErrRequest, "error"},
		{"timeout", func(w http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		}, 1, ErrRequest, "timeout"},
	}
	for _, policy := range []string{apiserverv1.FailurePolicyNoOpinion, apiserverv1.FailurePolicyDeny} {
		want := authorizer.DecisionNoOpinion
		if policy == apiserverv1.FailurePolicyDeny {
			want = authorizer.DecisionDeny
		}
		for _, tt := range tests {
			t.Run(policy+"/"+tt.name, func(t *testing.T) {
				e := newEnv(t, func(c *Config) {
					c.FailurePolicy = policy
					c.Timeout = 200 * time.Millisecond
				})
				e.hook.setAnswer(tt.answer)
				d, reason, err := e.az.Authorize(background, podsList("alice"))
				if d != want || reason != "" || !errors.Is(err, tt.wantErr) {
					t.Fatalf("got (%v, %q, %v), want (%v, \"\", %v)", d, reason, err, want, tt.wantErr)
				}
				if got := e.hook.calls.Load(); got != tt.wantCalls {
					t.Errorf("webhook called %d times, want %d", got, tt.wantCalls)
				}
				if got := testutil.ToFloat64(e.metrics.evaluations.WithLabelValues("policy", tt.result)); got != float64(tt.wantCalls) {
					t.Errorf("evaluations{%s} = %v, want %d", tt.result, got, tt.wantCalls)
				}
				wantOpen := 0.0
				if policy == apiserverv1.FailurePolicyNoOpinion {
					wantOpen = 1
				}
				if got := testutil.ToFloat64(e.metrics.failOpen.WithLabelValues("policy", tt.result)); got != wantOpen {
					t.Errorf("fail_open{%s} = %v, want %v", tt.result, got, wantOpen)
				}
				// Failures are not cached: the next request asks again.
				_, _, _ = e.az.Authorize(background, podsList("alice"))
				if got := e.hook.calls.Load(); got != 2*tt.wantCalls {
					t.Errorf("after a second request: %d calls, want %d", got, 2*tt.wantCalls)
				}
			})
		}
	}
}

func TestRetryThenSuccess(t *testing.T) {
	e := newEnv(t, nil)
	e.hook.setAnswer(func(w http.ResponseWriter, r *http.Request) {
		if e.hook.calls.Load() < 3 {
			raw(500, "transient")(w, r)
			return
		}
		allowWith("third time")(w, r)
	})
	d, reason, err := e.az.Authorize(background, podsList("alice"))
	if d != authorizer.DecisionAllow || reason != "third time" || err != nil {
		t.Fatalf("got (%v, %q, %v)", d, reason, err)
	}
	if got := e.hook.calls.Load(); got != 3 {
		t.Errorf("%d calls, want 3", got)
	}
}

func TestCanceledContext(t *testing.T) {
	e := newEnv(t, nil)
	ctx, cancel := context.WithCancel(background)
	cancel()
	d, _, err := e.az.Authorize(ctx, podsList("alice"))
	if d != authorizer.DecisionNoOpinion || err == nil {
		t.Fatalf("got (%v, %v)", d, err)
	}
	if got := testutil.ToFloat64(e.metrics.failOpen.WithLabelValues("policy", "canceled")); got != 0 {
		t.Errorf("a canceled request counted as fail open")
	}
}

func TestCredentials(t *testing.T) {
	t.Run("no client certificate is refused by the server", func(t *testing.T) {
		p := newPKI(t)
		hook := newFakeWebhook(t, p)
		az, err := New(Config{
			Name: "nocert", KubeConfigFile: kubeconfig(t, p, hook.srv.URL, false, ""),
			Version: "v1", FailurePolicy: "Deny", Backoff: fastBackoff(1),
		})
		if err != nil {
			t.Fatal(err)
		}
		d, _, err := az.Authorize(background, podsList("alice"))
		if d != authorizer.DecisionDeny || !errors.Is(err, ErrRequest) {
			t.Fatalf("got (%v, %v), want Deny and a request error", d, err)
		}
	})
	t.Run("bearer token", func(t *testing.T) {
		p := newPKI(t)
		hook := newFakeWebhookWith(t, p, false, "s3cr3t")
		az, err := New(Config{
			Name: "token", KubeConfigFile: kubeconfig(t, p, hook.srv.URL, false, "s3cr3t"),
			Version: "v1", FailurePolicy: "Deny", Backoff: fastBackoff(1),
		})
		if err != nil {
			t.Fatal(err)
		}
		d, _, err := az.Authorize(background, podsList("alice"))
		if d != authorizer.DecisionAllow || err != nil {
			t.Fatalf("got (%v, %v)", d, err)
		}
		if got := hook.header("Authorization"); got != "Bearer s3cr3t" {
			t.Errorf("Authorization %q", got)
		}
	})
	t.Run("untrusted server certificate", func(t *testing.T) {
		p := newPKI(t)
		other := newPKI(t) // the webhook's certificate is from another CA
		hook := newFakeWebhook(t, other)
		az, err := New(Config{
			Name: "mitm", KubeConfigFile: kubeconfig(t, p, hook.srv.URL, true, ""),
			Version: "v1", FailurePolicy: "NoOpinion", Backoff: fastBackoff(1),
		})
		if err != nil {
			t.Fatal(err)
		}
		if d, _, err := az.Authorize(background, podsList("alice")); d != authorizer.DecisionNoOpinion || err == nil {
			t.Fatalf("got (%v, %v)", d, err)
		}
		if hook.calls.Load() != 0 {
			t.Error("request reached an untrusted server")
		}
	})
}

func TestNewErrors(t *testing.T) {
	p := newPKI(t)
	good := kubeconfig(t, p, "https://127.0.0.1:1", true, "")
	tests := []struct {
		name string
		cfg  Config
	}{
		{"missing kubeconfig", Config{KubeConfigFile: filepath.Join(p.dir, "nope"), Version: "v1", FailurePolicy: "Deny"}},
		{"no kubeconfig", Config{Version: "v1", FailurePolicy: "Deny"}},
		{"bad version", Config{KubeConfigFile: good, Version: "v2", FailurePolicy: "Deny"}},
		{"bad failure policy", Config{KubeConfigFile: good, Version: "v1", FailurePolicy: "Allow"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.cfg); !errors.Is(err, ErrConfig) {
				t.Fatalf("err = %v, want ErrConfig", err)
			}
		})
	}
}
