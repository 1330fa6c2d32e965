package serviceaccount

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestValidateTokenRequest(t *testing.T) {
	webhook := &authenticationv1.BoundObjectReference{Kind: "ValidatingWebhookConfiguration", APIVersion: "admissionregistration.k8s.io/v1", Name: "w"}
	groups := func(v ...string) map[string]authenticationv1.AttestationValue {
		return map[string]authenticationv1.AttestationValue{authenticationv1.AttestationAdmissionReviewAPIGroups: v}
	}
	tests := []struct {
		name string
		spec authenticationv1.TokenRequestSpec
		want []string
	}{
		{"defaults", authenticationv1.TokenRequestSpec{}, nil},
		{"ten minutes", authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](600)}, nil},
		{"too short", authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](599)},
			[]string{"spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes"}},
		{"too long", authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](1<<32 + 1)},
			[]string{"spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds"}},
		{"attestations without a webhook win over the rest", authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](1),
			Attestations: groups("apps")},
			[]string{`spec.attestations: Invalid value: {"admissionReviewAPIGroups":["apps"]}: attestations may only be specified with a webhook bound object reference`}},
		{"webhook", authenticationv1.TokenRequestSpec{Audiences: []string{"https://w"}, BoundObjectRef: webhook, Attestations: groups("*")}, nil},
		{"webhook needs one audience and one attestation", authenticationv1.TokenRequestSpec{Audiences: []string{"a", "b"}, BoundObjectRef: webhook},
			[]string{
				`spec.audiences: Invalid value: ["a","b"]: must be length 1 when bound to a webhook config`,
				`spec.attestations: Invalid value: null: webhook bound requests require exactly one admissionReviewAPIGroups attestation`,
			}},
		{"webhook attestation values", authenticationv1.TokenRequestSpec{Audiences: []string{"a"}, BoundObjectRef: webhook, Attestations: groups("")},
			[]string{`spec.attestations[admissionReviewAPIGroups][0]: Invalid value: "": may not be an empty string`}},
		{"webhook attestation group", authenticationv1.TokenRequestSpec{Audiences: []string{"a"}, BoundObjectRef: webhook, Attestations: groups("Not_A_Group")},
			[]string{`spec.attestations[admissionReviewAPIGroups][0]: Invalid value: "Not_A_Group": must specify a valid API Group: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"webhook attestation with two groups", authenticationv1.TokenRequestSpec{Audiences: []string{"a"}, BoundObjectRef: webhook, Attestations: groups("a", "b")},
			[]string{`spec.attestations[admissionReviewAPIGroups]: Invalid value: ["a","b"]: must specify a single value`}},
		{"webhook attestation key", authenticationv1.TokenRequestSpec{Audiences: []string{"a"}, BoundObjectRef: webhook,
			Attestations: map[string]authenticationv1.AttestationValue{"other": {"x"}}},
			[]string{`spec.attestations[other]: Unsupported value: "other": supported values: "admissionReviewAPIGroups"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &authenticationv1.TokenRequest{Spec: tc.spec}
			SetDefaults(&tr.Spec)
			var got []string
			for _, e := range ValidateTokenRequest(tr) {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

// statusOf returns the HTTP code and message of an API error.
func statusOf(err error) (int32, string) {
	var s apierrors.APIStatus
	if errors.As(err, &s) {
		return s.Status().Code, s.Status().Message
	}
	return 0, fmt.Sprint(err)
}

func TestTokenRequestCreate(t *testing.T) {
	r1, _, _, _ := testKeys(t)
	podRef := func(name string) *authenticationv1.BoundObjectReference {
		return &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: name}
	}
	tests := []struct {
		name       string
		cfg        func(*Config)
		world      func(*fakeGetter)
		target     string // service account name in the URL; default testSA
		req        authenticationv1.TokenRequest
		admit      AdmitFunc
		wantCode   int32
		wantMsg    string
		wantExp    int64    // status expiration, seconds from now
		wantAud    []string // spec.audiences of the response
		wantWarn   []string
		wantExtra  map[string][]string
		wantClaims func(t *testing.T, c *boundClaims)
	}{
		{name: "defaults", wantExp: 3600, wantAud: []string{testIssuer},
			wantExtra: map[string][]string{CredentialIDKey: {"JTI=" + testJTI}}},
		{name: "audiences and expiration", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
			Audiences: []string{testIssuer, "vault"}, ExpirationSeconds: ptr.To[int64](7200)}},
			wantExp: 7200, wantAud: []string{testIssuer, "vault"}},
		{name: "capped with a warning", cfg: func(c *Config) { c.MaxExpiration = 2 * time.Hour },
			req:     authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](86400)}},
			wantExp: 7200, wantAud: []string{testIssuer},
			wantWarn: []string{"requested expiration of 86400 seconds shortened to 7200 seconds"}},
		{name: "bound to a pod, with its node", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: podRef("web-0")}},
			wantExp: 3600, wantAud: []string{testIssuer}, wantExtra: map[string][]string{
				CredentialIDKey: {"JTI=" + testJTI}, PodNameKey: {"web-0"}, PodUIDKey: {string(testPodUID)},
				NodeNameKey: {"n1"}, NodeUIDKey: {string(testNodUID)}}},
		{name: "bound to a pod on a missing node", world: func(g *fakeGetter) { delete(g.nodes, "n1") },
			req:     authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: podRef("web-0")}},
			wantExp: 3600, wantAud: []string{testIssuer}, wantExtra: map[string][]string{
				CredentialIDKey: {"JTI=" + testJTI}, PodNameKey: {"web-0"}, PodUIDKey: {string(testPodUID)}, NodeNameKey: {"n1"}}},
		{name: "bound to an unscheduled pod", world: func(g *fakeGetter) { g.pods[key(testNS, "web-0")].Spec.NodeName = "" },
			req:     authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: podRef("web-0")}},
			wantExp: 3600, wantAud: []string{testIssuer}, wantExtra: map[string][]string{
				CredentialIDKey: {"JTI=" + testJTI}, PodNameKey: {"web-0"}, PodUIDKey: {string(testPodUID)}}},
		{name: "pod's node unreadable", world: func(g *fakeGetter) { g.nodeErr = errors.New("etcd down") },
			req:      authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: podRef("web-0")}},
			wantCode: http.StatusInternalServerError, wantMsg: "Internal error occurred: etcd down"},
		{name: "extended for a projected volume", cfg: func(c *Config) { c.ExtendExpiration = true },
			req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: podRef("web-0"),
				ExpirationSeconds: ptr.To[int64](WarnOnlyExpirationSeconds)}},
			wantExp: 3607, wantAud: []string{testIssuer},
			wantClaims: func(t *testing.T, c *boundClaims) {
				if got := int64(*c.Expiry) - testNow.Unix(); got != 365*24*3600 {
					t.Errorf("extended token lives %d s", got)
				}
			}},
		{name: "bound to a secret", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{
			Kind: "Secret", APIVersion: "v1", Name: "bound", UID: testSecUID}}},
			wantExp: 3600, wantAud: []string{testIssuer},
			wantClaims: func(t *testing.T, c *boundClaims) {
				if c.Kubernetes.Secret == nil || c.Kubernetes.Secret.UID != string(testSecUID) {
					t.Errorf("secret claim %+v", c.Kubernetes.Secret)
				}
			}},
		{name: "bound to a node", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{
			Kind: "Node", APIVersion: "v1", Name: "n1"}}},
			wantExp: 3600, wantAud: []string{testIssuer}, wantExtra: map[string][]string{
				CredentialIDKey: {"JTI=" + testJTI}, NodeNameKey: {"n1"}, NodeUIDKey: {string(testNodUID)}}},

		{name: "name in the body differs", req: authenticationv1.TokenRequest{ObjectMeta: metav1.ObjectMeta{Name: "other"}},
			wantCode: http.StatusUnprocessableEntity,
			wantMsg:  `TokenRequest.authentication.k8s.io "builder" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified`},
		{name: "namespace in the body differs", req: authenticationv1.TokenRequest{ObjectMeta: metav1.ObjectMeta{Namespace: "other"}},
			wantCode: http.StatusUnprocessableEntity,
			wantMsg:  `TokenRequest.authentication.k8s.io "builder" is invalid: metadata.namespace: Invalid value: "other": must match the service account namespace if specified`},
		{name: "no such service account", target: "ghost", wantCode: http.StatusNotFound, wantMsg: `serviceaccounts "ghost" not found`},
		{name: "service account UID differs", req: authenticationv1.TokenRequest{ObjectMeta: metav1.ObjectMeta{UID: "old"}},
			wantCode: http.StatusConflict,
			wantMsg:  `Operation cannot be fulfilled on TokenRequest.authentication.k8s.io "builder": the UID in the token request (old) does not match the UID of the service account (` + string(testSAUID) + `)`},
		{name: "expiration too short", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](60)}},
			wantCode: http.StatusUnprocessableEntity,
			wantMsg:  `TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes`},
		{name: "denied by admission", admit: func(context.Context, *authenticationv1.TokenRequest) error {
			return apierrors.NewForbidden(corev1.Resource("serviceaccounts/token"), testSA, errors.New("audience not allowed"))
		}, wantCode: http.StatusForbidden, wantMsg: `serviceaccounts/token "builder" is forbidden: audience not allowed`},
		{name: "pod of another service account", world: func(g *fakeGetter) { g.pods[key(testNS, "web-0")].Spec.ServiceAccountName = "default" },
			req:      authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: podRef("web-0")}},
			wantCode: http.StatusBadRequest, wantMsg: `cannot bind token for serviceaccount "builder" to pod running with different serviceaccount name.`},
		{name: "missing pod", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: podRef("nope")}},
			wantCode: http.StatusNotFound, wantMsg: `pods "nope" not found`},
		{name: "bound object without a name", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: podRef("")}},
			wantCode: http.StatusBadRequest, wantMsg: "Name parameter required."},
		{name: "pod recreated", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{
			Kind: "Pod", APIVersion: "v1", Name: "web-0", UID: "old"}}},
			wantCode: http.StatusConflict,
			wantMsg:  `Operation cannot be fulfilled on Pod "web-0": the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated`},
		{name: "unsupported kind", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{
			Kind: "ConfigMap", APIVersion: "v1", Name: "c"}}},
			wantCode: http.StatusBadRequest, wantMsg: "cannot bind token to object of type /v1, Kind=ConfigMap"},
		{name: "pod of another group", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{
			Kind: "Pod", APIVersion: "example.com/v1", Name: "web-0"}}},
			wantCode: http.StatusBadRequest, wantMsg: "cannot bind token to object of type example.com/v1, Kind=Pod"},
		{name: "webhook configuration", req: authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
			Audiences: []string{"https://w"}, Attestations: map[string]authenticationv1.AttestationValue{"admissionReviewAPIGroups": {"*"}},
			BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "MutatingWebhookConfiguration", APIVersion: "admissionregistration.k8s.io/v1", Name: "w"}}},
			wantCode: http.StatusBadRequest,
			wantMsg:  "cannot bind token to object of type admissionregistration.k8s.io/v1, Kind=MutatingWebhookConfiguration (feature gate APIServerWebhookAuthenticationToken is disabled)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			world := newWorld()
			if tc.world != nil {
				tc.world(world)
			}
			iss, keys := newTestIssuer(t, cfg, r1)
			trs, err := NewTokenRequests(iss, world)
			if err != nil {
				t.Fatal(err)
			}
			target := tc.target
			if target == "" {
				target = testSA
			}
			req := tc.req.DeepCopy()
			before := req.DeepCopy()
			resp, err := trs.Create(t.Context(), testNS, target, req, tc.admit)
			if diff := cmp.Diff(before, req); diff != "" {
				t.Errorf("the request was modified:\n%s", diff)
			}
			if tc.wantCode != 0 {
				code, msg := statusOf(err)
				if code != tc.wantCode || msg != tc.wantMsg {
					t.Fatalf("got %d %q\nwant %d %q", code, msg, tc.wantCode, tc.wantMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out := resp.TokenRequest
			if out.APIVersion != "authentication.k8s.io/v1" || out.Kind != "TokenRequest" ||
				out.Name != testSA || out.Namespace != testNS || out.UID != testSAUID || !out.CreationTimestamp.Time.Equal(testNow) {
				t.Errorf("metadata %+v %+v", out.TypeMeta, out.ObjectMeta)
			}
			if want := testNow.Add(time.Duration(tc.wantExp) * time.Second); !out.Status.ExpirationTimestamp.Time.Equal(want) ||
				*out.Spec.ExpirationSeconds != tc.wantExp {
				t.Errorf("expiration %v (spec %d), want %v", out.Status.ExpirationTimestamp, *out.Spec.ExpirationSeconds, want)
			}
			if diff := cmp.Diff(tc.wantAud, out.Spec.Audiences); diff != "" {
				t.Errorf("audiences (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantWarn, resp.Warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if resp.CredentialID != "JTI="+testJTI {
				t.Errorf("credential ID %q", resp.CredentialID)
			}
			// The token works against this server, with the identity asked for.
			a := newTestAuthenticator(t, cfg, keys, world, testNow)
			r, ok, err := a.Verify(t.Context(), out.Status.Token)
			if tc.wantAud[0] == testIssuer && (!ok || err != nil) {
				t.Fatalf("issued token rejected: %v", err)
			}
			if ok && tc.wantExtra != nil {
				if diff := cmp.Diff(tc.wantExtra, r.User.GetExtra()); diff != "" {
					t.Errorf("extra (-want +got):\n%s", diff)
				}
			}
			if tc.wantClaims != nil {
				var c boundClaims
				if err := jsonUnmarshal(decodePart(t, out.Status.Token, 1), &c); err != nil {
					t.Fatal(err)
				}
				tc.wantClaims(t, &c)
			}
		})
	}
}

func TestTokenRequestGetterErrors(t *testing.T) {
	r1, _, _, _ := testKeys(t)
	iss, _ := newTestIssuer(t, testConfig(), r1)
	tests := []struct {
		name     string
		err      error
		wantCode int32
	}{
		{"package sentinel", fmt.Errorf("lookup: %w", ErrNotFound), http.StatusNotFound},
		{"API status kept", apierrors.NewServiceUnavailable("later"), http.StatusServiceUnavailable},
		{"anything else", errors.New("disk on fire"), http.StatusInternalServerError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			trs, err := NewTokenRequests(iss, failingGetter{tc.err})
			if err != nil {
				t.Fatal(err)
			}
			_, err = trs.Create(t.Context(), testNS, testSA, &authenticationv1.TokenRequest{}, nil)
			if code, msg := statusOf(err); code != tc.wantCode {
				t.Errorf("got %d %q, want %d", code, msg, tc.wantCode)
			}
		})
	}
	if _, err := NewTokenRequests(nil, newWorld()); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("no issuer: %v", err)
	}
	if resp, err := (&TokenRequests{issuer: iss, getter: newWorld()}).Create(t.Context(), testNS, testSA, nil, nil); resp != nil || !apierrors.IsBadRequest(err) {
		t.Errorf("nil request: %v", err)
	}
}

type failingGetter struct{ err error }

func (f failingGetter) GetServiceAccount(context.Context, string, string) (*corev1.ServiceAccount, error) {
	return nil, f.err
}
func (f failingGetter) GetPod(context.Context, string, string) (*corev1.Pod, error) {
	return nil, f.err
}
func (f failingGetter) GetSecret(context.Context, string, string) (*corev1.Secret, error) {
	return nil, f.err
}
func (f failingGetter) GetNode(context.Context, string) (*corev1.Node, error) { return nil, f.err }
