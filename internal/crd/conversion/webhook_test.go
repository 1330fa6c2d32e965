package conversion

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/portcullis/portcullis/internal/webhookclient"
)

func TestConvert(t *testing.T) {
	h := newHook(t, converting(func(_ int, obj map[string]any) {
		md := obj["metadata"].(map[string]any)
		// Labels and annotations are the webhook's to change; the rest of
		// the metadata is restored.
		md["labels"] = map[string]any{"app": "cron", "converted": "yes"}
		md["generation"] = 7
		md["resourceVersion"] = "1"
	}, nil))
	w := newWebhook(t, crd(h.url(), h.ca), Options{})
	a, b, c := cronTab(v1, "a", 3), cronTab(v2, "b", 4), cronTab(v1, "c", 5)
	if errs := w.Convert(t.Context(), []*unstructured.Unstructured{a, b, c}, v2); errs != nil {
		t.Fatal(errs)
	}
	for _, o := range []*unstructured.Unstructured{a, c} {
		want := cronTab(v2, o.GetName(), map[string]int{"a": 3, "c": 5}[o.GetName()])
		want.SetLabels(map[string]string{"app": "cron", "converted": "yes"})
		if diff := cmp.Diff(want.Object, o.Object); diff != "" {
			t.Errorf("%s converted (-want +got):\n%s", o.GetName(), diff)
		}
	}
	if diff := cmp.Diff(cronTab(v2, "b", 4).Object, b.Object); diff != "" {
		t.Errorf("b, in v2 already, changed (-want +got):\n%s", diff)
	}
	calls := h.called()
	if len(calls) != 1 {
		t.Fatalf("%d reviews, want one for the list", len(calls))
	}
	r := calls[0]
	if r.query != "timeout=30s" || r.userAgent != "kube-apiserver-admission" {
		t.Errorf("query %q, user agent %q; want kube-apiserver's timeout=30s and kube-apiserver-admission", r.query, r.userAgent)
	}
	req := r.review["request"].(map[string]any)
	if r.review["apiVersion"] != "apiextensions.k8s.io/v1" || r.review["kind"] != "ConversionReview" ||
		req["desiredAPIVersion"] != "stable.example.com/v2" || req["uid"] == "" || len(req["objects"].([]any)) != 2 {
		t.Errorf("review %v, want a v1 ConversionReview of the two v1 objects to v2", r.review)
	}
	if _, ok := r.review["response"]; !ok {
		t.Error("the review has no empty response, which kube-apiserver sends")
	}
}

func TestConvertV1beta1(t *testing.T) {
	// v1beta1 answers are checked for neither kind nor uid, as in
	// kube-apiserver.
	h := newHook(t, converting(nil, func(resp map[string]any) { delete(resp, "uid") }))
	w := newWebhook(t, crd(h.url(), h.ca, "v1beta1", "v1"), Options{})
	obj := cronTab(v2, "a", 3)
	if errs := w.Convert(t.Context(), []*unstructured.Unstructured{obj}, v1); errs != nil {
		t.Fatal(errs)
	}
	if got, _, _ := unstructured.NestedString(obj.Object, "spec", "size"); got != "3" || obj.GetAPIVersion() != "stable.example.com/v1" {
		t.Errorf("converted %v", obj.Object)
	}
	if got := h.called()[0].review["apiVersion"]; got != "apiextensions.k8s.io/v1beta1" {
		t.Errorf("review in %v, want the first of conversionReviewVersions", got)
	}
}

// TestBadAnswers: what kube-apiserver v1.37.2 says of each bad answer, as
// a user reads it behind "AdditionalErrorMsg: object not decodable
// revision=N: " (recorded from the reference with the same answers).
func TestBadAnswers(t *testing.T) {
	const prefix = "conversion webhook for stable.example.com/v1, Kind=CronTab "
	tests := []struct {
		name    string
		respond func(map[string]any) answer
		want    string
	}{
		{name: "wrong uid", respond: converting(nil, func(r map[string]any) { r["uid"] = "nope" }),
			want: prefix + `failed: expected response.uid="UID", got "nope"`},
		{name: "wrong count", respond: converting(nil, func(r map[string]any) {
			objs := r["convertedObjects"].([]any)
			r["convertedObjects"] = append(objs, objs...)
		}), want: prefix + "returned 2 objects, expected 1"},
		{name: "no objects", respond: converting(nil, func(r map[string]any) { delete(r, "convertedObjects") }),
			want: prefix + "returned 0 objects, expected 1"},
		{name: "changed name", respond: converting(func(_ int, o map[string]any) { o["metadata"].(map[string]any)["name"] = "other" }, nil),
			want: prefix + "returned invalid object: must have the same name: a != other"},
		{name: "changed namespace", respond: converting(func(_ int, o map[string]any) { o["metadata"].(map[string]any)["namespace"] = "other" }, nil),
			want: prefix + "returned invalid object: must have the same namespace: default != other"},
		{name: "dropped uid", respond: converting(func(_ int, o map[string]any) { delete(o["metadata"].(map[string]any), "uid") }, nil),
			want: prefix + "returned invalid object: must have the same UID: uid-a != "},
		{name: "no metadata", respond: converting(func(_ int, o map[string]any) { delete(o, "metadata") }, nil),
			want: prefix + "returned invalid object: must have the same name: a != "},
		{name: "wrong apiVersion", respond: converting(func(_ int, o map[string]any) { o["apiVersion"] = "other.example.com/v9" }, nil),
			want: prefix + "returned invalid object at index 0: invalid groupVersion (expected stable.example.com/v2, received other.example.com/v9)"},
		{name: "wrong kind", respond: converting(func(_ int, o map[string]any) { o["kind"] = "Other" }, nil),
			want: prefix + "returned invalid object at index 0: invalid kind (expected CronTab, received Other)"},
		{name: "bad label", respond: converting(func(_ int, o map[string]any) {
			o["metadata"].(map[string]any)["labels"] = map[string]any{"bad label": "yes"}
		}, nil), want: prefix + `returned invalid metadata: metadata.labels: Invalid value: "bad label": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`},
		{name: "label not a string", respond: converting(func(_ int, o map[string]any) {
			o["metadata"].(map[string]any)["labels"] = map[string]any{"app": 1}
		}, nil), want: prefix + "returned invalid metadata: metadata.labels[app] must be a string, but is int64 in converted object"},
		{name: "annotations not a map", respond: converting(func(_ int, o map[string]any) {
			o["metadata"].(map[string]any)["annotations"] = "x"
		}, nil), want: prefix + "returned invalid metadata: invalid metadata.annotations of type string in converted object"},
		{name: "failure", respond: converting(nil, func(r map[string]any) {
			r["result"] = map[string]any{"status": "Failure", "message": "cannot convert today"}
		}), want: prefix + "failed: cannot convert today"},
		{name: "failure without message", respond: converting(nil, func(r map[string]any) { r["result"] = map[string]any{"status": "Failure"} }),
			want: prefix + "failed: response.result.status was 'Failure', not 'Success'"},
		{name: "no result", respond: converting(nil, func(r map[string]any) { delete(r, "result") }),
			want: prefix + "failed: response.result.status was '', not 'Success'"},
		{name: "no response", respond: func(map[string]any) answer {
			return answer{raw: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}`}
		}, want: prefix + "failed: no response provided"},
		{name: "no kind", respond: func(map[string]any) answer { return answer{raw: `{"response":{}}`} },
			want: prefix + "failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got /, Kind="},
		{name: "another kind", respond: func(map[string]any) answer {
			return answer{raw: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"AdmissionReview"}`}
		}, want: prefix + `failed: no kind "AdmissionReview" is registered for version "apiextensions.k8s.io/v1" in scheme "pkg/runtime/scheme.go:111"`},
		{name: "v1beta1 answer", respond: func(map[string]any) answer {
			return answer{raw: `{"apiVersion":"apiextensions.k8s.io/v1beta1","kind":"ConversionReview","response":{}}`}
		}, want: prefix + "failed: converting (v1beta1.ConversionReview) to (v1.ConversionReview): unknown conversion"},
		{name: "status with 200", respond: func(map[string]any) answer {
			return answer{raw: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"ok-code status"}`}
		}, want: prefix + "failed: converting (v1.Status) to (v1.ConversionReview): unknown conversion"},
		{name: "not json", respond: func(map[string]any) answer { return answer{raw: "not json"} },
			want: prefix + `failed: couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" }`},
		{name: "empty body", respond: func(map[string]any) answer { return answer{} },
			want: prefix + "failed: 0-length response with status code: 200 and content type: application/json"},
		{name: "500 text", respond: func(map[string]any) answer { return answer{status: 500, contentType: "text/plain", raw: "boom"} },
			want: prefix + `failed: an error on the server ("boom") has prevented the request from succeeding`},
		{name: "500 json", respond: func(map[string]any) answer { return answer{status: 500, raw: "{}"} },
			want: prefix + `failed: an error on the server ("unknown") has prevented the request from succeeding`},
		{name: "403 status", respond: func(map[string]any) answer {
			return answer{status: 403, raw: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"status says no","reason":"Forbidden","code":403}`}
		}, want: prefix + "failed: status says no"},
		{name: "404 html", respond: func(map[string]any) answer {
			return answer{status: 404, contentType: "text/html", raw: "<html>nf</html>"}
		},
			want: prefix + "failed: the server could not find the requested resource"},
		{name: "redirect", respond: func(map[string]any) answer { return answer{status: 302, contentType: "text/plain", raw: "moved"} },
			want: prefix + "failed: the server responded with the status code 302 but did not return more information"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHook(t, tt.respond)
			w := newWebhook(t, crd(h.url(), h.ca), Options{})
			obj := cronTab(v1, "a", 3)
			before := obj.DeepCopy()
			errs := w.Convert(t.Context(), []*unstructured.Unstructured{obj}, v2)
			if len(errs) != 1 || errs[0] == nil {
				t.Fatalf("errors %v, want one", errs)
			}
			want := tt.want
			if calls := h.called(); len(calls) == 1 {
				uid, _ := calls[0].review["request"].(map[string]any)["uid"].(string)
				want = strings.ReplaceAll(want, `"UID"`, `"`+uid+`"`)
			}
			if got := errs[0].Error(); got != want {
				t.Errorf("error\n%s\nwant\n%s", got, want)
			}
			if diff := cmp.Diff(before.Object, obj.Object); diff != "" {
				t.Errorf("an object that failed to convert changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestOneBadObject: a list's objects fail alone.
func TestOneBadObject(t *testing.T) {
	h := newHook(t, converting(func(i int, o map[string]any) {
		if i == 1 {
			o["metadata"].(map[string]any)["name"] = "other"
		}
	}, nil))
	w := newWebhook(t, crd(h.url(), h.ca), Options{})
	objs := []*unstructured.Unstructured{cronTab(v1, "a", 1), cronTab(v1, "b", 2), cronTab(v1, "c", 3)}
	errs := w.Convert(t.Context(), objs, v2)
	if len(errs) != 3 || errs[0] != nil || errs[2] != nil || errs[1] == nil {
		t.Fatalf("errors %v, want one for b", errs)
	}
	if want := "conversion webhook for stable.example.com/v1, Kind=CronTab returned invalid object: must have the same name: b != other"; errs[1].Error() != want {
		t.Errorf("error %q, want %q", errs[1], want)
	}
	if objs[0].GetAPIVersion() != v2.String() || objs[1].GetAPIVersion() != v1.String() || objs[2].GetAPIVersion() != v2.String() {
		t.Errorf("versions %s %s %s, want a and c converted, b not", objs[0].GetAPIVersion(), objs[1].GetAPIVersion(), objs[2].GetAPIVersion())
	}
}

func TestWebhookDown(t *testing.T) {
	h := newHook(t, converting(nil, nil))
	w := newWebhook(t, crd(h.url(), h.ca), Options{})
	h.srv.Close()
	errs := w.Convert(t.Context(), []*unstructured.Unstructured{cronTab(v1, "a", 1), cronTab(v1, "b", 2)}, v2)
	want := `conversion webhook for stable.example.com/v1, Kind=CronTab failed: Post "` + h.url() + `?timeout=30s": dial tcp ` +
		strings.TrimPrefix(h.srv.URL, "https://") + ": connect: connection refused"
	if len(errs) != 2 {
		t.Fatalf("errors %v, want one per object", errs)
	}
	for _, err := range errs {
		if err == nil || err.Error() != want {
			t.Errorf("error\n%v\nwant\n%s", err, want)
		}
	}
}

func TestUnknownAuthority(t *testing.T) {
	h := newHook(t, converting(nil, nil))
	// No caBundle: the system's roots, which do not know httptest's.
	w := newWebhook(t, crd(h.url(), []byte("  \n")), Options{})
	errs := w.Convert(t.Context(), []*unstructured.Unstructured{cronTab(v1, "a", 1)}, v2)
	if errs == nil || !strings.Contains(errs[0].Error(), "tls: failed to verify certificate: x509: certificate signed by unknown authority") {
		t.Fatalf("errors %v, want the certificate refused", errs)
	}
}

// TestTimeout: a webhook that never answers fails the conversion when
// the call's time is up.
func TestTimeout(t *testing.T) {
	h := newHook(t, nil)
	w := newWebhook(t, crd(h.url(), h.ca), Options{Timeout: 100 * time.Millisecond})
	errs := w.Convert(t.Context(), []*unstructured.Unstructured{cronTab(v1, "a", 1)}, v2)
	if errs == nil || !errors.Is(errs[0], context.DeadlineExceeded) {
		t.Fatalf("errors %v, want the deadline", errs)
	}
	want := `conversion webhook for stable.example.com/v1, Kind=CronTab failed: Post "` + h.url() + `?timeout=1s": context deadline exceeded`
	if got := errs[0].Error(); got != want {
		t.Errorf("error\n%s\nwant\n%s", got, want)
	}
}

// TestCallerDeadline: the caller's deadline reaches the webhook when it
// is the nearer one.
func TestCallerDeadline(t *testing.T) {
	h := newHook(t, converting(nil, nil))
	w := newWebhook(t, crd(h.url(), h.ca), Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if errs := w.Convert(ctx, []*unstructured.Unstructured{cronTab(v1, "a", 1)}, v2); errs != nil {
		t.Fatal(errs)
	}
	if q := h.called()[0].query; q != "timeout=10s" {
		t.Errorf("query %q, want timeout=10s", q)
	}
}

func TestNothingToSend(t *testing.T) {
	h := newHook(t, converting(nil, nil))
	w := newWebhook(t, crd(h.url(), h.ca), Options{})
	if errs := w.Convert(t.Context(), []*unstructured.Unstructured{cronTab(v2, "a", 1)}, v2); errs != nil {
		t.Fatal(errs)
	}
	if n := len(h.called()); n != 0 {
		t.Errorf("%d calls for an object in the version already", n)
	}
}

func TestNoReviewVersion(t *testing.T) {
	h := newHook(t, converting(nil, nil))
	w := newWebhook(t, crd(h.url(), h.ca, "v2"), Options{})
	errs := w.Convert(t.Context(), []*unstructured.Unstructured{cronTab(v1, "a", 1)}, v2)
	if errs == nil || errs[0].Error() != "no supported conversion review versions" {
		t.Fatalf("errors %v", errs)
	}
}

func TestNew(t *testing.T) {
	def := crd("https://127.0.0.1/", nil)
	def.Spec.Conversion.Webhook = nil
	if _, err := New(def, Options{Client: nil}); !errors.Is(err, ErrNoWebhook) {
		t.Errorf("New without a webhook: %v", err)
	}
}

// TestService: a clientConfig.service is resolved as the admission
// webhooks resolve it, with its path.
func TestService(t *testing.T) {
	h := newHook(t, converting(nil, nil))
	var asked string
	resolver := webhookclient.ServiceResolverFunc(func(_ context.Context, ns, name string, port int32) (*url.URL, error) {
		asked = fmt.Sprintf("%s/%s:%d", ns, name, port)
		return url.Parse(h.srv.URL)
	})
	def := crd("", h.ca)
	def.Spec.Conversion.Webhook.ClientConfig.URL = nil
	path, port := "/convert", int32(8443)
	def.Spec.Conversion.Webhook.ClientConfig.Service = &apiextensionsv1.ServiceReference{Namespace: "hooks", Name: "conv", Path: &path, Port: &port}
	w := newWebhook(t, def, Options{Client: webhookclient.New(resolver)})
	errs := w.Convert(t.Context(), []*unstructured.Unstructured{cronTab(v1, "a", 1)}, v2)
	// httptest's certificate is not for conv.hooks.svc: the server name
	// is the Service's, as in kube-apiserver.
	if errs == nil || !strings.Contains(errs[0].Error(), "conv.hooks.svc") || asked != "hooks/conv:8443" {
		t.Fatalf("errors %v, resolver asked %q; want a certificate error for conv.hooks.svc after asking for hooks/conv:8443", errs, asked)
	}
}
