package serviceaccount

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/util/keyutil"
)

// The key ID of this key is pinned by kube-apiserver's own tests: the
// derivation must not change or tokens already issued stop verifying.
func TestKeyIDMatchesKubeAPIServer(t *testing.T) {
	keys, err := keyutil.PublicKeysFromFile("testdata/kube-apiserver-keyid.pub")
	if err != nil {
		t.Fatal(err)
	}
	got, err := KeyID(keys[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := "JHJehTTTZlsspKHT-GaJxK7Kd1NQgZJu3fyK6K_QDYU"; got != want {
		t.Errorf("KeyID = %q, want %q", got, want)
	}
}

func pemOf(t *testing.T, typ string, der []byte) []byte {
	t.Helper()
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func pkix1(t *testing.T, pub crypto.PublicKey) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return pemOf(t, "PUBLIC KEY", der)
}

func pkcs8(t *testing.T, key any) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pemOf(t, "PRIVATE KEY", der)
}

func sec1(t *testing.T, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pemOf(t, "EC PRIVATE KEY", der)
}

func selfSigned(t *testing.T, key crypto.Signer) []byte {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "sa"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<31, 0)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return pemOf(t, "CERTIFICATE", der)
}

func write(t *testing.T, dir, name string, parts ...[]byte) string {
	t.Helper()
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func kids(t *testing.T, pubs ...crypto.PublicKey) []string {
	t.Helper()
	var out []string
	for _, p := range pubs {
		id, err := KeyID(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	return out
}

func keyIDsOf(k *Keys) []string {
	var out []string
	for _, p := range k.Verifying {
		out = append(out, p.KeyID)
	}
	return out
}

func TestLoadOrGenerateKeysFromFiles(t *testing.T) {
	r1, r2, e256, e384 := testKeys(t)
	_, edKey, _ := ed25519.GenerateKey(rand.Reader)
	dir := t.TempDir()
	rsaPKCS1 := write(t, dir, "rsa1.key", pemOf(t, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(r1)))
	ecSEC1 := write(t, dir, "ec.key", pemOf(t, "EC PARAMETERS", []byte{6, 8, 42, 134, 72, 206, 61, 3, 1, 7}), sec1(t, e256))
	ecPKCS8 := write(t, dir, "ec8.key", pkcs8(t, e384))
	edPKCS8 := write(t, dir, "ed.key", pkcs8(t, edKey))
	// One file mixing every kind of block kube-apiserver accepts, plus a
	// block that is not a key at all.
	mixed := write(t, dir, "mixed.pem",
		pkix1(t, r2.Public()),
		pemOf(t, "NOT A KEY", []byte("hello")),
		selfSigned(t, e384),
		pemOf(t, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(r1)),
		sec1(t, e256))
	pubOnly := write(t, dir, "r2.pub", pkix1(t, r2.Public()))
	noKeys := write(t, dir, "none.pem", pemOf(t, "CERTIFICATE REQUEST", []byte("x")))

	tests := []struct {
		name    string
		signing string
		verify  []string
		wantKID string
		want    []string // verification key IDs, in order
		wantErr error
		errText bool
	}{
		{name: "rsa PKCS#1 signing key alone", signing: rsaPKCS1,
			wantKID: kids(t, r1.Public())[0], want: kids(t, r1.Public())},
		{name: "ecdsa SEC1 after a parameters block", signing: ecSEC1,
			wantKID: kids(t, e256.Public())[0], want: kids(t, e256.Public())},
		{name: "ecdsa P-384 PKCS#8", signing: ecPKCS8,
			wantKID: kids(t, e384.Public())[0], want: kids(t, e384.Public())},
		{name: "mixed verification file, signing key deduplicated", signing: rsaPKCS1, verify: []string{mixed},
			wantKID: kids(t, r1.Public())[0], want: kids(t, r2.Public(), e384.Public(), r1.Public(), e256.Public())},
		{name: "several files, signing key appended", signing: ecSEC1, verify: []string{pubOnly, rsaPKCS1},
			wantKID: kids(t, e256.Public())[0], want: kids(t, r2.Public(), r1.Public(), e256.Public())},
		{name: "ed25519 signing key", signing: edPKCS8, wantErr: ErrUnsupportedKey},
		{name: "signing key file missing", signing: filepath.Join(dir, "absent"), wantErr: os.ErrNotExist},
		{name: "signing key file has no private key", signing: pubOnly, errText: true},
		{name: "verification file without keys", signing: rsaPKCS1, verify: []string{noKeys}, errText: true},
		{name: "verification file missing", signing: rsaPKCS1, verify: []string{filepath.Join(dir, "absent")}, wantErr: os.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, err := LoadOrGenerateKeys("", tc.signing, tc.verify)
			switch {
			case tc.wantErr != nil || tc.errText:
				if err == nil || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if k.SigningKeyID != tc.wantKID || k.SigningKeyFile != tc.signing || k.Generated {
				t.Errorf("signing key %q from %q (generated %v), want %q from %q", k.SigningKeyID, k.SigningKeyFile, k.Generated, tc.wantKID, tc.signing)
			}
			if got := keyIDsOf(k); !equal(got, tc.want) {
				t.Errorf("verification keys\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestLoadOrGenerateKeysGenerates(t *testing.T) {
	dataDir := t.TempDir()
	keyFile := filepath.Join(dataDir, "pki", "sa.key")
	pubFile := filepath.Join(dataDir, "pki", "sa.pub")

	first, err := LoadOrGenerateKeys(dataDir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Generated || first.SigningKeyFile != keyFile {
		t.Fatalf("first call: generated %v into %q", first.Generated, first.SigningKeyFile)
	}
	rk, ok := first.Signing.(*rsa.PrivateKey)
	if !ok || rk.N.BitLen() != 2048 {
		t.Fatalf("generated %T, want an RSA 2048 key", first.Signing)
	}
	for file, perm := range map[string]os.FileMode{keyFile: 0o600, pubFile: 0o644} {
		st, err := os.Stat(file)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != perm {
			t.Errorf("%s mode %v, want %v", file, st.Mode().Perm(), perm)
		}
	}
	pubs, err := keyutil.PublicKeysFromFile(pubFile)
	if err != nil || len(pubs) != 1 || kids(t, pubs[0])[0] != first.SigningKeyID {
		t.Fatalf("sa.pub does not hold the signing key: %v", err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dataDir, "pki", ".*")); len(leftovers) != 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}

	t.Run("reused on the next start", func(t *testing.T) {
		again, err := LoadOrGenerateKeys(dataDir, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		if again.Generated || again.SigningKeyID != first.SigningKeyID {
			t.Errorf("second call generated %v, kid %q, want the first key %q", again.Generated, again.SigningKeyID, first.SigningKeyID)
		}
	})
	t.Run("sa.pub rewritten when missing", func(t *testing.T) {
		if err := os.Remove(pubFile); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadOrGenerateKeys(dataDir, "", nil); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(pubFile); err != nil {
			t.Error(err)
		}
	})
	t.Run("extra verification keys beside the generated one", func(t *testing.T) {
		_, r2, _, _ := testKeys(t)
		extra := write(t, t.TempDir(), "extra.pub", pkix1(t, r2.Public()))
		k, err := LoadOrGenerateKeys(dataDir, "", []string{extra})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := keyIDsOf(k), []string{kids(t, r2.Public())[0], first.SigningKeyID}; !equal(got, want) {
			t.Errorf("verification keys %q, want %q", got, want)
		}
	})
	t.Run("sa.pub of another key is refused", func(t *testing.T) {
		_, r2, _, _ := testKeys(t)
		write(t, filepath.Join(dataDir, "pki"), "sa.pub", pkix1(t, r2.Public()))
		if _, err := LoadOrGenerateKeys(dataDir, "", nil); !errors.Is(err, ErrKeyMismatch) {
			t.Errorf("err = %v, want ErrKeyMismatch", err)
		}
	})
	t.Run("a corrupt sa.key is an error, never replaced", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, "pki"), 0o700); err != nil {
			t.Fatal(err)
		}
		corrupt := write(t, filepath.Join(dir, "pki"), "sa.key", []byte("garbage"))
		if _, err := LoadOrGenerateKeys(dir, "", nil); err == nil {
			t.Fatal("corrupt key accepted")
		}
		if b, _ := os.ReadFile(corrupt); string(b) != "garbage" {
			t.Error("corrupt key was overwritten")
		}
	})
	t.Run("no data dir", func(t *testing.T) {
		if _, err := LoadOrGenerateKeys("", "", nil); !errors.Is(err, ErrNoDataDir) {
			t.Errorf("err = %v, want ErrNoDataDir", err)
		}
	})
}

func TestJWKS(t *testing.T) {
	r1, _, e256, e384 := testKeys(t)
	k, err := NewKeys(r1, e256.Public(), e384)
	if err != nil {
		t.Fatal(err)
	}
	b, err := k.JWKS()
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Keys []struct{ Kty, Kid, Alg, Use string }
	}
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatal(err)
	}
	ids := kids(t, e256.Public(), e384.Public(), r1.Public())
	want := []struct{ Kty, Kid, Alg, Use string }{
		{"EC", ids[0], "ES256", "sig"}, {"EC", ids[1], "ES384", "sig"}, {"RSA", ids[2], "RS256", "sig"},
	}
	if len(set.Keys) != len(want) {
		t.Fatalf("JWKS has %d keys: %s", len(set.Keys), b)
	}
	for i := range want {
		if set.Keys[i] != want[i] {
			t.Errorf("key %d = %+v, want %+v", i, set.Keys[i], want[i])
		}
	}
}
