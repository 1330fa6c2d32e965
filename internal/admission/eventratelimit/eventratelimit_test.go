package eventratelimit

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/portcullis/portcullis/internal/admission"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// request describes one admission call.
type request struct {
	op        admission.Operation
	namespace string
	user      string
	kind      schema.GroupVersionKind
	object    runtime.Object
	dryRun    bool
}

func (r request) attributes() *admission.Attributes {
	a := &admission.Attributes{
		Kind:      schema.GroupVersionKind{Version: "v1", Kind: "Event"},
		Resource:  schema.GroupVersionResource{Version: "v1", Resource: "events"},
		Namespace: r.namespace,
		Operation: r.op,
		Object:    r.object,
		DryRun:    r.dryRun,
	}
	if a.Operation == "" {
		a.Operation = admission.Create
	}
	if a.Object == nil {
		a.Object = &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: r.namespace}}
	}
	if r.kind != (schema.GroupVersionKind{}) {
		a.Kind = r.kind
	}
	if r.user != "" {
		a.UserInfo = &user.DefaultInfo{Name: r.user}
	}
	return a
}

// step is a request after advancing the clock, and the error message it
// must get ("" for admitted).
type step struct {
	advance time.Duration
	req     request
	want    string
}

func repeat(n int, s step) []step {
	out := make([]step, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func concat(parts ...[]step) []step {
	var out []step
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func event(component, host, kind, ns, name, uid, apiVersion string) *corev1.Event {
	return &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "e", Namespace: ns},
		Source:     corev1.EventSource{Component: component, Host: host},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Namespace: ns, Name: name,
			UID: types.UID(uid), APIVersion: apiVersion},
	}
}

func TestValidateRateLimits(t *testing.T) {
	ns := func(n string) request { return request{namespace: n} }
	tests := []struct {
		name   string
		limits []Limit
		steps  []step
	}{
		{
			name:   "server burst then refill",
			limits: []Limit{{Type: ServerLimitType, QPS: 1, Burst: 3}},
			steps: concat(
				repeat(3, step{req: ns("a")}),
				[]step{{req: ns("b"), want: "Too many requests: limit reached on type Server for key "}},
				[]step{{advance: time.Second, req: ns("c")}},
				[]step{{req: ns("c"), want: "Too many requests: limit reached on type Server for key "}},
				[]step{{advance: 500 * time.Millisecond, req: ns("c"), want: "Too many requests: limit reached on type Server for key "}},
				[]step{{advance: 500 * time.Millisecond, req: ns("c")}},
			),
		},
		{
			name:   "refill is capped at burst",
			limits: []Limit{{Type: ServerLimitType, QPS: 10, Burst: 2}},
			steps: concat(
				[]step{{advance: time.Hour, req: ns("a")}},
				repeat(1, step{req: ns("a")}),
				[]step{{req: ns("a"), want: "Too many requests: limit reached on type Server for key "}},
			),
		},
		{
			name:   "namespace buckets are separate",
			limits: []Limit{{Type: NamespaceLimitType, QPS: 1, Burst: 2}},
			steps: concat(
				repeat(2, step{req: ns("a")}),
				[]step{{req: ns("a"), want: "Too many requests: limit reached on type Namespace for key a"}},
				repeat(2, step{req: ns("b")}),
				[]step{{req: ns("b"), want: "Too many requests: limit reached on type Namespace for key b"}},
			),
		},
		{
			name:   "lru eviction gives a full bucket",
			limits: []Limit{{Type: NamespaceLimitType, QPS: 1, Burst: 1, CacheSize: 2}},
			steps: []step{
				{req: ns("a")},
				{req: ns("a"), want: "Too many requests: limit reached on type Namespace for key a"},
				{req: ns("b")},
				// a was used more recently than b, so c pushes b out.
				{req: ns("a"), want: "Too many requests: limit reached on type Namespace for key a"},
				{req: ns("c")},
				{req: ns("a"), want: "Too many requests: limit reached on type Namespace for key a"},
				{req: ns("b")},
				// b came back and pushed out c, the least recently used.
				{req: ns("c")},
			},
		},
		{
			name:   "user",
			limits: []Limit{{Type: UserLimitType, QPS: 1, Burst: 1}},
			steps: []step{
				{req: request{namespace: "a", user: "alice"}},
				{req: request{namespace: "b", user: "alice"}, want: "Too many requests: limit reached on type User for key alice"},
				{req: request{namespace: "a", user: "bob"}},
				{req: request{namespace: "a"}},
				{req: request{namespace: "b"}, want: "Too many requests: limit reached on type User for key "},
			},
		},
		{
			name:   "source and object",
			limits: []Limit{{Type: SourceAndObjectLimitType, QPS: 1, Burst: 1}},
			steps: []step{
				{req: request{namespace: "a", object: event("kubelet", "node1", "Pod", "a", "p", "u1", "v1")}},
				{req: request{namespace: "a", object: event("kubelet", "node1", "Pod", "a", "p", "u1", "v1")},
					want: "Too many requests: limit reached on type SourceAndObject for key kubeletnode1Podapu1v1"},
				{req: request{namespace: "a", object: event("kubelet", "node2", "Pod", "a", "p", "u1", "v1")}},
				// The fields run together: another split of the same text
				// is the same bucket.
				{req: request{namespace: "a", object: event("kube", "letnode1", "Pod", "a", "p", "u1", "v1")},
					want: "Too many requests: limit reached on type SourceAndObject for key kubeletnode1Podapu1v1"},
			},
		},
		{
			name: "every limit spends a token and every refusal is named",
			limits: []Limit{
				{Type: ServerLimitType, QPS: 1, Burst: 2},
				{Type: NamespaceLimitType, QPS: 1, Burst: 1},
			},
			steps: []step{
				{req: ns("a")},
				{req: ns("a"), want: "Too many requests: limit reached on type Namespace for key a"},
				// The refused request above still took the server's
				// last token.
				{req: ns("b"), want: "Too many requests: limit reached on type Server for key "},
				{req: ns("a"), want: "Too many requests: [limit reached on type Server for key , limit reached on type Namespace for key a]"},
			},
		},
		{
			name:   "updates are limited",
			limits: []Limit{{Type: ServerLimitType, QPS: 1, Burst: 1}},
			steps: []step{
				{req: request{op: admission.Update}},
				{req: request{op: admission.Create}, want: "Too many requests: limit reached on type Server for key "},
			},
		},
		{
			name:   "deletes, dry runs and other kinds are not limited",
			limits: []Limit{{Type: ServerLimitType, QPS: 1, Burst: 1}},
			steps: concat(
				repeat(3, step{req: request{op: admission.Delete}}),
				repeat(3, step{req: request{op: admission.Connect}}),
				repeat(3, step{req: request{dryRun: true}}),
				repeat(3, step{req: request{kind: schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"}, object: &eventsv1.Event{}}}),
				repeat(3, step{req: request{kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, object: &corev1.Pod{}}}),
				[]step{{req: request{}}},
				[]step{{req: request{}, want: "Too many requests: limit reached on type Server for key "}},
			),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(epoch)
			p, err := NewFromConfig(&Configuration{TypeMeta: typeMeta, Limits: tc.limits}, clk)
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range tc.steps {
				clk.SetTime(clk.Now().Add(s.advance))
				err := p.Validate(context.Background(), s.req.attributes())
				got := ""
				if err != nil {
					got = err.Error()
					if !apierrors.IsTooManyRequests(err) {
						t.Errorf("step %d: error %v is not TooManyRequests", i, err)
					}
				}
				if diff := cmp.Diff(s.want, got); diff != "" {
					t.Errorf("step %d: error (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

// TestTooManyRequestsStatus pins the status a refused client gets.
func TestTooManyRequestsStatus(t *testing.T) {
	p, err := New([]byte("apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Server\n  qps: 1\n  burst: 1\n"),
		clocktesting.NewFakePassiveClock(epoch))
	if err != nil {
		t.Fatal(err)
	}
	a := request{namespace: "a"}.attributes()
	if err := p.Validate(context.Background(), a); err != nil {
		t.Fatal(err)
	}
	err = p.Validate(context.Background(), a)
	st, ok := err.(*apierrors.StatusError)
	if !ok {
		t.Fatalf("error %T %v, want a StatusError", err, err)
	}
	want := metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    429,
		Reason:  metav1.StatusReasonTooManyRequests,
		Message: "Too many requests: limit reached on type Server for key ",
	}
	if diff := cmp.Diff(want, st.ErrStatus); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
}
