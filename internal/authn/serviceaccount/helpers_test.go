package serviceaccount

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

const (
	testIssuer = "https://kubernetes.default.svc.cluster.local"
	testNS     = "team-a"
	testSA     = "builder"
	testSAUID  = types.UID("0b5ab1e5-0000-4000-8000-00000000000a")
	testPodUID = types.UID("0b5ab1e5-0000-4000-8000-00000000000b")
	testSecUID = types.UID("0b5ab1e5-0000-4000-8000-00000000000c")
	testNodUID = types.UID("0b5ab1e5-0000-4000-8000-00000000000d")
	testJTI    = "9f0c6a3e-6c3e-4a55-9b43-7a7d0e3f1c2b"
)

// testNow is a fixed instant; tokens are issued at it unless a test says
// otherwise.
var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// Keys are expensive to generate; every test shares the same few.
var (
	keysOnce             sync.Once
	rsaKey1, rsaKey2     *rsa.PrivateKey
	ecKeyP256, ecKeyP384 *ecdsa.PrivateKey
	keysErr              error
)

func testKeys(t testing.TB) (*rsa.PrivateKey, *rsa.PrivateKey, *ecdsa.PrivateKey, *ecdsa.PrivateKey) {
	t.Helper()
	keysOnce.Do(func() {
		if rsaKey1, keysErr = rsa.GenerateKey(rand.Reader, 2048); keysErr != nil {
			return
		}
		if rsaKey2, keysErr = rsa.GenerateKey(rand.Reader, 2048); keysErr != nil {
			return
		}
		if ecKeyP256, keysErr = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); keysErr != nil {
			return
		}
		ecKeyP384, keysErr = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	})
	if keysErr != nil {
		t.Fatal(keysErr)
	}
	return rsaKey1, rsaKey2, ecKeyP256, ecKeyP384
}

// fakeGetter is an in-memory store of the objects tokens name.
type fakeGetter struct {
	sas     map[string]*corev1.ServiceAccount
	pods    map[string]*corev1.Pod
	secrets map[string]*corev1.Secret
	nodes   map[string]*corev1.Node
	nodeErr error
}

func key(ns, name string) string { return ns + "/" + name }

func nf(resource, name string) error {
	return apierrors.NewNotFound(schema.GroupResource{Resource: resource}, name)
}

func (g *fakeGetter) GetServiceAccount(_ context.Context, ns, name string) (*corev1.ServiceAccount, error) {
	if o, ok := g.sas[key(ns, name)]; ok {
		return o, nil
	}
	return nil, nf("serviceaccounts", name)
}

func (g *fakeGetter) GetPod(_ context.Context, ns, name string) (*corev1.Pod, error) {
	if o, ok := g.pods[key(ns, name)]; ok {
		return o, nil
	}
	return nil, nf("pods", name)
}

func (g *fakeGetter) GetSecret(_ context.Context, ns, name string) (*corev1.Secret, error) {
	if o, ok := g.secrets[key(ns, name)]; ok {
		return o, nil
	}
	return nil, nf("secrets", name)
}

func (g *fakeGetter) GetNode(_ context.Context, name string) (*corev1.Node, error) {
	if g.nodeErr != nil {
		return nil, g.nodeErr
	}
	if o, ok := g.nodes[name]; ok {
		return o, nil
	}
	return nil, nf("nodes", name)
}

// newWorld holds a service account with a pod on node n1, a secret, and
// the node.
func newWorld() *fakeGetter {
	meta := func(name string, uid types.UID) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: testNS, Name: name, UID: uid}
	}
	return &fakeGetter{
		sas: map[string]*corev1.ServiceAccount{key(testNS, testSA): {ObjectMeta: meta(testSA, testSAUID)}},
		pods: map[string]*corev1.Pod{key(testNS, "web-0"): {
			ObjectMeta: meta("web-0", testPodUID),
			Spec:       corev1.PodSpec{ServiceAccountName: testSA, NodeName: "n1"},
		}},
		secrets: map[string]*corev1.Secret{key(testNS, "bound"): {ObjectMeta: meta("bound", testSecUID)}},
		nodes:   map[string]*corev1.Node{"n1": {ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: testNodUID}}},
	}
}

func testConfig() Config {
	return Config{Issuers: []string{testIssuer, "https://old.example"}, Legacy: true}
}

// newTestIssuer signs with key at a fixed time and with a fixed jti.
func newTestIssuer(t testing.TB, cfg Config, key crypto.Signer, verify ...crypto.PublicKey) (*Issuer, *Keys) {
	t.Helper()
	keys, err := NewKeys(key, verify...)
	if err != nil {
		t.Fatal(err)
	}
	iss, err := NewIssuer(keys, cfg)
	if err != nil {
		t.Fatal(err)
	}
	iss.now = func() time.Time { return testNow }
	iss.newID = func() string { return testJTI }
	return iss, keys
}

func newTestAuthenticator(t testing.TB, cfg Config, keys *Keys, g Getter, now time.Time) *Authenticator {
	t.Helper()
	a, err := NewAuthenticator(keys, cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	a.now = func() time.Time { return now }
	return a
}

// signRaw signs any payload with any header fields, to build tokens our
// Issuer would never produce.
func signRaw(t testing.TB, key any, alg jose.SignatureAlgorithm, kid string, payload any) string {
	t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	var opts *jose.SignerOptions
	if kid != "" {
		opts = (&jose.SignerOptions{}).WithHeader("kid", kid)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := s.Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// unsigned builds a compact token from raw header and payload JSON.
func unsigned(header, payload, sig string) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(header)) + "." + enc([]byte(payload)) + "." + sig
}

// decodePart returns one part of a compact token as indented JSON.
func decodePart(t testing.TB, token string, i int) []byte {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token has %d parts", len(parts))
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[i])
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
