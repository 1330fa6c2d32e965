package imagepolicy

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	imagepolicyv1alpha1 "k8s.io/api/imagepolicy/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/request"
)

var podsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func allow(extra string) answer {
	return answer{code: http.StatusOK, body: `{"apiVersion":"imagepolicy.k8s.io/v1alpha1","kind":"ImageReview","status":{"allowed":true` + extra + `}}`}
}

func deny(reason string) answer {
	return answer{code: http.StatusOK, body: `{"apiVersion":"imagepolicy.k8s.io/v1alpha1","kind":"ImageReview","status":{"allowed":false,"reason":"` + reason + `"}}`}
}

var serverError = answer{code: http.StatusInternalServerError, contentType: "text/plain", body: "oops"}

func testPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Annotations: map[string]string{
			"mirror.image-policy.k8s.io/allow": "yes",
			"image-policy.k8s.io/top":          "not matched: no dot before",
			"example.com/other":                "no",
		}},
		Spec: corev1.PodSpec{
			Containers:          []corev1.Container{{Name: "a", Image: "nginx:1"}, {Name: "b", Image: "redis"}},
			InitContainers:      []corev1.Container{{Name: "i", Image: "busybox"}},
			EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "e", Image: "debug"}}},
		},
	}
}

func attrs(op admission.Operation, sub string, obj runtime.Object) *admission.Attributes {
	return &admission.Attributes{Resource: podsResource, Subresource: sub, Operation: op, Namespace: "ns", Name: "p", Object: obj}
}

var podSpec = imagepolicyv1alpha1.ImageReviewSpec{
	Containers:  []imagepolicyv1alpha1.ImageReviewContainerSpec{{Image: "nginx:1"}, {Image: "redis"}, {Image: "busybox"}},
	Annotations: map[string]string{"mirror.image-policy.k8s.io/allow": "yes"},
	Namespace:   "ns",
}

func TestValidate(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name         string
		answers      []answer
		defaultAllow bool
		ctx          context.Context
		attrs        *admission.Attributes
		// wantErr is the error message, wantCode its HTTP code.
		wantErr  string
		wantCode int32
		// wantSpecs are the review specs the webhook received.
		wantSpecs   []imagepolicyv1alpha1.ImageReviewSpec
		wantAudit   map[string]string
		wantPodAnns map[string]string
	}{
		{
			name:      "allowed",
			answers:   []answer{allow("")},
			attrs:     attrs(admission.Create, "", testPod()),
			wantSpecs: []imagepolicyv1alpha1.ImageReviewSpec{podSpec},
		},
		{
			name:      "update is reviewed",
			answers:   []answer{allow("")},
			attrs:     attrs(admission.Update, "", testPod()),
			wantSpecs: []imagepolicyv1alpha1.ImageReviewSpec{podSpec},
		},
		{
			name:    "dry run is reviewed",
			answers: []answer{allow("")},
			attrs: func() *admission.Attributes {
				a := attrs(admission.Create, "", testPod())
				a.DryRun = true
				return a
			}(),
			wantSpecs: []imagepolicyv1alpha1.ImageReviewSpec{podSpec},
		},
		{
			name:    "ephemeral containers",
			answers: []answer{allow("")},
			attrs:   attrs(admission.Update, "ephemeralcontainers", testPod()),
			wantSpecs: []imagepolicyv1alpha1.ImageReviewSpec{{
				Containers:  []imagepolicyv1alpha1.ImageReviewContainerSpec{{Image: "debug"}},
				Annotations: map[string]string{"mirror.image-policy.k8s.io/allow": "yes"},
				Namespace:   "ns",
			}},
		},
		{
			name:    "pod without containers or annotations",
			answers: []answer{allow("")},
			attrs:   attrs(admission.Create, "", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}),
			wantSpecs: []imagepolicyv1alpha1.ImageReviewSpec{{
				Namespace: "ns",
			}},
		},
		{
			name:      "denied with a reason",
			answers:   []answer{deny("no latest tags")},
			attrs:     attrs(admission.Create, "", testPod()),
			wantErr:   `pods "p" is forbidden: image policy webhook backend denied one or more images: no latest tags`,
			wantCode:  http.StatusForbidden,
			wantSpecs: []imagepolicyv1alpha1.ImageReviewSpec{podSpec},
		},
		{
			name:      "denied without a reason",
			answers:   []answer{deny("")},
			attrs:     attrs(admission.Create, "", testPod()),
			wantErr:   `pods "p" is forbidden: one or more images rejected by webhook backend`,
			wantCode:  http.StatusForbidden,
			wantSpecs: []imagepolicyv1alpha1.ImageReviewSpec{podSpec},
		},
		{
			name:         "a denial is not a failure: defaultAllow does not apply",
			answers:      []answer{deny("no")},
			defaultAllow: true,
			attrs:        attrs(admission.Create, "", testPod()),
			wantErr:      `pods "p" is forbidden: image policy webhook backend denied one or more images: no`,
			wantCode:     http.StatusForbidden,
			wantSpecs:    []imagepolicyv1alpha1.ImageReviewSpec{podSpec},
		},
		{
			name:      "audit annotations, invalid keys dropped",
			answers:   []answer{allow(`,"auditAnnotations":{"checked":"yes","a/b":"two slashes","not valid":"space"}`)},
			attrs:     attrs(admission.Create, "", testPod()),
			wantSpecs: []imagepolicyv1alpha1.ImageReviewSpec{podSpec},
			wantAudit: map[string]string{"imagepolicywebhook.image-policy.k8s.io/checked": "yes"},
		},
		{
			name:      "audit annotations of a denial",
			answers:   []answer{{code: http.StatusOK, body: `{"status":{"allowed":false,"auditAnnotations":{"why":"tag"}}}`}},
			attrs:     attrs(admission.Create, "", testPod()),
			wantErr:   `pods "p" is forbidden: one or more images rejected by webhook backend`,
			wantCode:  http.StatusForbidden,
			wantSpecs: []imagepolicyv1alpha1.ImageReviewSpec{podSpec},
			wantAudit: map[string]string{"imagepolicywebhook.image-policy.k8s.io/why": "tag"},
		},
		{
			name:      "server errors are retried five times in all",
			answers:   []answer{serverError},
			attrs:     attrs(admission.Create, "", testPod()),
			wantErr:   `pods "p" is forbidden: an error on the server ("oops") has prevented the request from succeeding`,
			wantCode:  http.StatusForbidden,
			wantSpecs: []imagepolicyv1alpha1.ImageReviewSpec{podSpec, podSpec, podSpec, podSpec, podSpec},
		},
		{
			name:      "a retry that succeeds",
			answers:   []answer{serverError, {code: http.StatusTooManyRequests}, {code: http.StatusGatewayTimeout}, allow("")},
			attrs:     attrs(admission.Create, "", testPod()),
			wantSpecs: []imagepolicyv1alpha1.ImageReviewSpec{podSpec, podSpec, podSpec, podSpec},
		},
		{
			name:      "503 without Retry-After is not retried",
			answers:   []answer{{code: http.StatusServiceUnavailable}, allow("")},
			attrs:     attrs(admission.Create, "", testPod()),
			wantErr:   `pods "p" is forbidden: the server is currently unable to handle the request`,
			wantCode:  http.StatusForbidden,
			wantSpecs: []imagepolicyv1alpha1.ImageReviewSpec{podSpec},
		},
		{
			name:      "401 is not retried",
			answers:   []answer{{code: http.StatusUnauthorized}, allow("")},
			attrs:     attrs(admission.Create, "", testPod()),
			wantErr:   `pods "p" is forbidden: the server has asked for the client to provide credentials`,
			wantCode:  http.StatusForbidden,
			wantSpecs: []imagepolicyv1alpha1.ImageReviewSpec{podSpec},
		},
		{
			name:      "a Forbidden status of the webhook is passed on",
			answers:   []answer{{code: http.StatusForbidden, body: `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"go away","reason":"Forbidden","code":403}`}},
			attrs:     attrs(admission.Create, "", testPod()),
			wantErr:   `go away`,
			wantCode:  http.StatusForbidden,
			wantSpecs: []imagepolicyv1alpha1.ImageReviewSpec{podSpec},
		},
		{
			name:      "an empty answer",
			answers:   []answer{{code: http.StatusOK}},
			attrs:     attrs(admission.Create, "", testPod()),
			wantErr:   `pods "p" is forbidden: 0-length response with status code: 200 and content type: application/json`,
			wantCode:  http.StatusForbidden,
			wantSpecs: []imagepolicyv1alpha1.ImageReviewSpec{podSpec},
		},
		{
			name:     "the request ended before the first attempt",
			answers:  []answer{allow("")},
			ctx:      canceled,
			attrs:    attrs(admission.Create, "", testPod()),
			wantErr:  `pods "p" is forbidden: Error contacting webhook: 0`,
			wantCode: http.StatusForbidden,
		},
		{
			name:         "fail open on server errors",
			answers:      []answer{serverError},
			defaultAllow: true,
			attrs:        attrs(admission.Create, "", testPod()),
			wantSpecs:    []imagepolicyv1alpha1.ImageReviewSpec{podSpec, podSpec, podSpec, podSpec, podSpec},
			wantAudit:    map[string]string{"imagepolicywebhook.image-policy.k8s.io/failed-open": "true"},
			wantPodAnns: map[string]string{
				"mirror.image-policy.k8s.io/allow":      "yes",
				"image-policy.k8s.io/top":               "not matched: no dot before",
				"example.com/other":                     "no",
				"alpha.image-policy.k8s.io/failed-open": "true",
			},
		},
		{
			name:         "fail open on an answer that is not a review",
			answers:      []answer{{code: http.StatusOK, body: "garbage"}},
			defaultAllow: true,
			attrs:        attrs(admission.Create, "", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}),
			wantSpecs:    []imagepolicyv1alpha1.ImageReviewSpec{{Namespace: "ns"}},
			wantAudit:    map[string]string{"imagepolicywebhook.image-policy.k8s.io/failed-open": "true"},
			wantPodAnns:  map[string]string{"alpha.image-policy.k8s.io/failed-open": "true"},
		},
		{
			name:     "not a pod",
			answers:  []answer{allow("")},
			attrs:    attrs(admission.Create, "", &corev1.ConfigMap{}),
			wantErr:  "Resource was marked with kind Pod but was unable to be converted",
			wantCode: http.StatusBadRequest,
		},
		{
			name:    "other subresources are not reviewed",
			answers: []answer{deny("")},
			attrs:   attrs(admission.Update, "status", testPod()),
		},
		{
			name:    "deletes are not reviewed",
			answers: []answer{deny("")},
			attrs:   attrs(admission.Delete, "", nil),
		},
		{
			name:    "other resources are not reviewed",
			answers: []answer{deny("")},
			attrs: &admission.Attributes{Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "pods"},
				Operation: admission.Create, Namespace: "ns", Name: "p", Object: testPod()},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &fakeWebhook{answers: tc.answers}
			p, err := NewFromConfig(WebhookConfig{KubeConfigFile: serve(t, w), DefaultAllow: tc.defaultAllow}, newFakeClock())
			if err != nil {
				t.Fatal(err)
			}
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			st := &request.State{}
			ctx = request.WithState(ctx, st)
			err = p.Validate(ctx, tc.attrs)
			var gotErr string
			var gotCode int32
			if err != nil {
				gotErr = err.Error()
				if s, ok := err.(apierrors.APIStatus); ok {
					gotCode = s.Status().Code
				}
			}
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
			if gotCode != tc.wantCode {
				t.Errorf("error code %d, want %d", gotCode, tc.wantCode)
			}
			var specs []imagepolicyv1alpha1.ImageReviewSpec
			for _, c := range w.received() {
				var r imagepolicyv1alpha1.ImageReview
				if err := json.Unmarshal([]byte(c.body), &r); err != nil {
					t.Fatalf("webhook received %q: %v", c.body, err)
				}
				specs = append(specs, r.Spec)
			}
			if diff := cmp.Diff(tc.wantSpecs, specs); diff != "" {
				t.Errorf("reviews sent (-want +got):\n%s", diff)
			}
			wantAudit := tc.wantAudit
			if wantAudit == nil {
				wantAudit = map[string]string{}
			}
			if diff := cmp.Diff(wantAudit, st.Annotations()); diff != "" {
				t.Errorf("audit annotations (-want +got):\n%s", diff)
			}
			if pod, ok := tc.attrs.Object.(*corev1.Pod); ok && tc.wantPodAnns != nil {
				if diff := cmp.Diff(tc.wantPodAnns, pod.Annotations); diff != "" {
					t.Errorf("pod annotations (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestUnchangedPod checks that only failing open touches the pod.
func TestUnchangedPod(t *testing.T) {
	for _, a := range []answer{allow(""), deny("no"), serverError} {
		w := &fakeWebhook{answers: []answer{a}}
		p, err := NewFromConfig(WebhookConfig{KubeConfigFile: serve(t, w)}, newFakeClock())
		if err != nil {
			t.Fatal(err)
		}
		pod := testPod()
		_ = p.Validate(context.Background(), attrs(admission.Create, "", pod))
		if diff := cmp.Diff(testPod(), pod); diff != "" {
			t.Errorf("answer %d: pod changed (-want +got):\n%s", a.code, diff)
		}
	}
}

// TestRequest pins what the webhook receives: kube-apiserver's encoding
// of the review, at the kubeconfig's URL with client-go's timeout
// parameter and the kubeconfig's credentials.
func TestRequest(t *testing.T) {
	w := &fakeWebhook{answers: []answer{allow("")}}
	p, err := NewFromConfig(WebhookConfig{KubeConfigFile: serve(t, w)}, newFakeClock())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(context.Background(), attrs(admission.Create, "", testPod())); err != nil {
		t.Fatal(err)
	}
	want := []call{{
		path: "/imagepolicy", query: "timeout=30s", auth: "Bearer secret", contentType: "application/json",
		body: `{"kind":"ImageReview","apiVersion":"imagepolicy.k8s.io/v1alpha1","metadata":{},"spec":{"containers":[{"image":"nginx:1"},{"image":"redis"},{"image":"busybox"}],"annotations":{"mirror.image-policy.k8s.io/allow":"yes"},"namespace":"ns"},"status":{"allowed":false}}` + "\n",
	}}
	if diff := cmp.Diff(want, w.received(), cmp.AllowUnexported(call{})); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// TestBackoff checks the waits between the five attempts: from
// retryBackoff, growing by half, each with up to 20% jitter.
func TestBackoff(t *testing.T) {
	w := &fakeWebhook{answers: []answer{serverError}}
	clk := newFakeClock()
	p, err := NewFromConfig(WebhookConfig{KubeConfigFile: serve(t, w), RetryBackoff: 100}, clk)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(context.Background(), attrs(admission.Create, "", testPod())); err == nil {
		t.Fatal("Validate() admitted the pod, want an error")
	}
	if n := len(w.received()); n != 5 {
		t.Errorf("%d attempts, want 5", n)
	}
	base := []time.Duration{100 * time.Millisecond, 150 * time.Millisecond, 225 * time.Millisecond, 337500 * time.Microsecond}
	if len(clk.waits) != len(base) {
		t.Fatalf("waits %v, want %d", clk.waits, len(base))
	}
	for i, d := range clk.waits {
		if hi := base[i] + base[i]/5; d < base[i] || d > hi {
			t.Errorf("wait %d is %v, want within [%v, %v]", i, d, base[i], hi)
		}
	}
}

func TestCache(t *testing.T) {
	type step struct {
		advance time.Duration
		pod     *corev1.Pod
		// wantCalls is the number of calls the webhook has received after
		// the step; wantErr whether the pod is refused.
		wantCalls int
		wantErr   bool
	}
	other := testPod()
	other.Spec.Containers[0].Image = "nginx:2"
	annotated := testPod()
	annotated.Annotations["mirror.image-policy.k8s.io/allow"] = "no"
	tests := []struct {
		name    string
		config  WebhookConfig
		answers []answer
		steps   []step
	}{
		{
			name:    "allowed for allowTTL",
			config:  WebhookConfig{AllowTTL: 10},
			answers: []answer{allow(""), deny("")},
			steps: []step{
				{pod: testPod(), wantCalls: 1},
				{advance: 10 * time.Second, pod: testPod(), wantCalls: 1},
				{advance: time.Nanosecond, pod: testPod(), wantCalls: 2, wantErr: true},
			},
		},
		{
			name:    "denied for denyTTL",
			config:  WebhookConfig{DenyTTL: 2},
			answers: []answer{deny("no"), allow("")},
			steps: []step{
				{pod: testPod(), wantCalls: 1, wantErr: true},
				{advance: 2 * time.Second, pod: testPod(), wantCalls: 1, wantErr: true},
				{advance: time.Millisecond, pod: testPod(), wantCalls: 2},
			},
		},
		{
			name:    "defaults: five minutes allowed",
			answers: []answer{allow("")},
			steps: []step{
				{pod: testPod(), wantCalls: 1},
				{advance: 5 * time.Minute, pod: testPod(), wantCalls: 1},
				{advance: time.Second, pod: testPod(), wantCalls: 2},
			},
		},
		{
			name:    "keyed by images and annotations",
			answers: []answer{allow("")},
			steps: []step{
				{pod: testPod(), wantCalls: 1},
				{pod: other, wantCalls: 2},
				{pod: annotated, wantCalls: 3},
				{pod: testPod(), wantCalls: 3},
			},
		},
		{
			name:    "disabled",
			config:  WebhookConfig{AllowTTL: -1, DenyTTL: -1},
			answers: []answer{allow(""), deny(""), allow("")},
			steps: []step{
				{pod: testPod(), wantCalls: 1},
				{pod: testPod(), wantCalls: 2, wantErr: true},
				{pod: testPod(), wantCalls: 3},
			},
		},
		{
			name:    "failures are not cached",
			config:  WebhookConfig{DefaultAllow: true},
			answers: []answer{serverError, serverError, serverError, serverError, serverError, deny("")},
			steps: []step{
				{pod: testPod(), wantCalls: 5},
				{pod: testPod(), wantCalls: 6, wantErr: true},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &fakeWebhook{answers: tc.answers}
			clk := newFakeClock()
			tc.config.KubeConfigFile = serve(t, w)
			p, err := NewFromConfig(tc.config, clk)
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range tc.steps {
				clk.step(s.advance)
				err := p.Validate(context.Background(), attrs(admission.Create, "", s.pod.DeepCopy()))
				if (err != nil) != s.wantErr {
					t.Errorf("step %d: error %v, want error %v", i, err, s.wantErr)
				}
				if n := len(w.received()); n != s.wantCalls {
					t.Errorf("step %d: %d calls, want %d", i, n, s.wantCalls)
				}
			}
		})
	}
}
