package serviceaccount

import (
	"bytes"
	"crypto"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"
)

func indent(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		t.Fatal(err)
	}
	return append(out.Bytes(), '\n')
}

// The payloads must match kube-apiserver's byte for byte (modulo values):
// relying parties and kubectl users read them.
func TestIssueFormat(t *testing.T) {
	r1, _, _, _ := testKeys(t)
	iss, keys := newTestIssuer(t, testConfig(), r1)
	sa := Ref{Name: testSA, UID: testSAUID}
	tests := []struct {
		name string
		req  Request
	}{
		{"unbound", Request{Namespace: testNS, ServiceAccount: sa}},
		{"pod with node", Request{Namespace: testNS, ServiceAccount: sa, Audiences: []string{"vault", "https://kubernetes.default.svc.cluster.local"},
			ExpirationSeconds: 7200, Pod: &Ref{Name: "web-0", UID: testPodUID}, Node: &Ref{Name: "n1", UID: testNodUID}}},
		{"pod on unknown node", Request{Namespace: testNS, ServiceAccount: sa, Pod: &Ref{Name: "web-0", UID: testPodUID}, Node: &Ref{Name: "gone"}}},
		{"secret", Request{Namespace: testNS, ServiceAccount: sa, Secret: &Ref{Name: "bound", UID: testSecUID}}},
		{"node", Request{Namespace: testNS, ServiceAccount: sa, Node: &Ref{Name: "n1", UID: testNodUID}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tok, _, err := iss.Issue(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(decodePart(t, tok, 0)), fmt.Sprintf(`{"alg":"RS256","kid":%q}`, keys.SigningKeyID); got != want {
				t.Errorf("header %s, want %s", got, want)
			}
			payload := decodePart(t, tok, 1)
			golden(t, "token-"+filepathSafe(tc.name)+".json", indent(t, payload))
		})
	}
}

func filepathSafe(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == ' ' {
			b[i] = '-'
		}
	}
	return string(b)
}

func TestIssueExpiration(t *testing.T) {
	r1, _, _, _ := testKeys(t)
	sa := Ref{Name: testSA, UID: testSAUID}
	pod := &Ref{Name: "web-0", UID: testPodUID}
	const year = 365 * 24 * 3600
	tests := []struct {
		name       string
		cfg        func(*Config)
		req        Request
		wantStatus int64 // seconds from now reported to the client
		wantExp    int64 // seconds from now in the token
		wantWarn   bool
		wantErr    error
	}{
		{name: "default is an hour", req: Request{}, wantStatus: 3600, wantExp: 3600},
		{name: "minimum", req: Request{ExpirationSeconds: 600}, wantStatus: 600, wantExp: 600},
		{name: "below minimum", req: Request{ExpirationSeconds: 599}, wantErr: ErrInvalidExpiration},
		{name: "negative", req: Request{ExpirationSeconds: -1}, wantErr: ErrInvalidExpiration},
		{name: "above 2^32", req: Request{ExpirationSeconds: 1<<32 + 1}, wantErr: ErrInvalidExpiration},
		{name: "2^32 without a cap", req: Request{ExpirationSeconds: 1 << 32}, wantStatus: 1 << 32, wantExp: 1 << 32},
		{name: "capped by the maximum", cfg: func(c *Config) { c.MaxExpiration = 2 * time.Hour },
			req: Request{ExpirationSeconds: 48 * 3600}, wantStatus: 7200, wantExp: 7200},
		{name: "extended for a pod-bound API token", cfg: func(c *Config) { c.ExtendExpiration = true },
			req: Request{ExpirationSeconds: 3607, Pod: pod}, wantStatus: 3607, wantExp: year, wantWarn: true},
		{name: "extended within a cap", cfg: func(c *Config) { c.ExtendExpiration = true; c.MaxExpiration = 2 * time.Hour },
			req: Request{ExpirationSeconds: 3607, Pod: pod}, wantStatus: 3607, wantExp: year, wantWarn: true},
		{name: "extension to a configured lifetime", cfg: func(c *Config) { c.ExtendExpiration = true; c.MaxExtendedExpiration = 48 * time.Hour },
			req: Request{ExpirationSeconds: 3607, Pod: pod}, wantStatus: 3607, wantExp: 48 * 3600, wantWarn: true},
		{name: "not extended when disabled", req: Request{ExpirationSeconds: 3607, Pod: pod}, wantStatus: 3607, wantExp: 3607},
		{name: "not extended for other audiences", cfg: func(c *Config) { c.ExtendExpiration = true },
			req: Request{ExpirationSeconds: 3607, Pod: pod, Audiences: []string{testIssuer, "vault"}}, wantStatus: 3607, wantExp: 3607},
		{name: "not extended without a pod", cfg: func(c *Config) { c.ExtendExpiration = true },
			req: Request{ExpirationSeconds: 3607}, wantStatus: 3607, wantExp: 3607},
		{name: "not extended for other lifetimes", cfg: func(c *Config) { c.ExtendExpiration = true },
			req: Request{ExpirationSeconds: 3600, Pod: pod}, wantStatus: 3600, wantExp: 3600},
		{name: "secret and pod together", req: Request{Pod: pod, Secret: &Ref{Name: "s"}}, wantErr: ErrInvalidRequest},
		{name: "no namespace", req: Request{Namespace: "-"}, wantErr: ErrInvalidRequest},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			iss, _ := newTestIssuer(t, cfg, r1)
			req := tc.req
			req.ServiceAccount = sa
			switch req.Namespace {
			case "":
				req.Namespace = testNS
			case "-":
				req.Namespace = ""
			}
			tok, exp, err := iss.Issue(req)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := testNow.Add(time.Duration(tc.wantStatus) * time.Second); !exp.Equal(want) {
				t.Errorf("exp = %v, want %v", exp, want)
			}
			var c boundClaims
			if err := json.Unmarshal(decodePart(t, tok, 1), &c); err != nil {
				t.Fatal(err)
			}
			if got := int64(*c.Expiry) - testNow.Unix(); got != tc.wantExp {
				t.Errorf("token lifetime %d s, want %d s", got, tc.wantExp)
			}
			if gotWarn := c.Kubernetes.WarnAfter != nil; gotWarn != tc.wantWarn {
				t.Errorf("warnafter present %v, want %v", gotWarn, tc.wantWarn)
			} else if gotWarn && int64(*c.Kubernetes.WarnAfter)-testNow.Unix() != 3607 {
				t.Errorf("warnafter %d s from now, want 3607", int64(*c.Kubernetes.WarnAfter)-testNow.Unix())
			}
		})
	}
}

func TestIssueECDSA(t *testing.T) {
	_, _, e256, e384 := testKeys(t)
	for _, tc := range []struct {
		name string
		key  crypto.Signer
		alg  string
	}{{"P-256", e256, "ES256"}, {"P-384", e384, "ES384"}} {
		t.Run(tc.name, func(t *testing.T) {
			iss, keys := newTestIssuer(t, testConfig(), tc.key)
			tok, _, err := iss.Issue(Request{Namespace: testNS, ServiceAccount: Ref{Name: testSA, UID: testSAUID}})
			if err != nil {
				t.Fatal(err)
			}
			if got, want := string(decodePart(t, tok, 0)), fmt.Sprintf(`{"alg":%q,"kid":%q}`, tc.alg, keys.SigningKeyID); got != want {
				t.Errorf("header %s, want %s", got, want)
			}
			a := newTestAuthenticator(t, testConfig(), keys, newWorld(), testNow)
			if _, ok, err := a.AuthenticateToken(t.Context(), tok); !ok || err != nil {
				t.Errorf("own token rejected: %v", err)
			}
		})
	}
}

func TestIssueLegacyFormat(t *testing.T) {
	r1, _, _, _ := testKeys(t)
	iss, _ := newTestIssuer(t, testConfig(), r1)
	tok, err := iss.IssueLegacy(testNS, Ref{Name: testSA, UID: testSAUID}, "builder-token-x7k2p")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "token-legacy.json", indent(t, decodePart(t, tok, 1)))
	if _, err := iss.IssueLegacy(testNS, Ref{Name: testSA}, "s"); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("legacy token without a UID: err = %v", err)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"valid", Config{Issuers: []string{"https://a", "b"}, MaxExpiration: time.Hour}, nil},
		{"no issuer", Config{}, []string{"service-account-issuer is a required flag"}},
		{"bad issuers", Config{Issuers: []string{"http://[::1]:namedport", "", "x", "x"}}, []string{
			`service-account-issuer "http://[::1]:namedport" contained a ':' but was not a valid URL: parse "http://[::1]:namedport": invalid port ":namedport" after host`,
			"service-account-issuer should not be an empty string",
			`service-account-issuer "x" is already specified`,
		}},
		{"max too short", Config{Issuers: []string{"a"}, MaxExpiration: 59 * time.Minute},
			[]string{"the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"}},
		{"max too long", Config{Issuers: []string{"a"}, MaxExpiration: (1<<32 + 1) * time.Second},
			[]string{"the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			var got []string
			if err != nil {
				if !errors.Is(err, ErrInvalidConfig) {
					t.Errorf("%v does not wrap ErrInvalidConfig", err)
				}
				for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
					got = append(got, e.Error()[len(ErrInvalidConfig.Error())+2:])
				}
			}
			if !equal(got, tc.want) {
				t.Errorf("errors\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestAPIAudiencesDefaultToFirstIssuer(t *testing.T) {
	if got := (Config{Issuers: []string{"a", "b"}}).apiAudiences(); !equal(got, []string{"a"}) {
		t.Errorf("got %q", got)
	}
	if got := (Config{Issuers: []string{"a"}, APIAudiences: []string{"x", "y"}}).apiAudiences(); !equal(got, []string{"x", "y"}) {
		t.Errorf("got %q", got)
	}
}
