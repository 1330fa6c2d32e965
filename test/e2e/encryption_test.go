package e2e

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/portcullis/portcullis/internal/storage"
	boltstore "github.com/portcullis/portcullis/internal/storage/bbolt"
	"github.com/portcullis/portcullis/test/e2e/harness"
)

// encryptionConfig writes an EncryptionConfiguration whose resources list
// is body (YAML, indented as a list under resources:).
func encryptionConfig(t *testing.T, path, body string) string {
	t.Helper()
	data := "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n" + body
	// Write aside and rename, so a reloading server never reads half a file.
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// aesKey is a base64 key of n bytes, all b.
func aesKey(b byte, n int) string {
	return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{b}, n))
}

// dbPath is the server's bbolt file.
func dbPath(s *harness.Server) string { return filepath.Join(s.DataDir, "db", "portcullis.db") }

// rawStore opens the stopped server's store directly, to see what is on
// disk, not what the API serves.
func rawStore(t *testing.T, s *harness.Server) *boltstore.Store {
	t.Helper()
	db, err := boltstore.Open(dbPath(s), boltstore.Options{})
	if err != nil {
		t.Fatalf("opening the store: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// storedValue returns the raw value of key in the stopped server's store.
func storedValue(t *testing.T, db storage.Store, key string) []byte {
	t.Helper()
	kv, err := db.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("reading %s: %v", key, err)
	}
	return kv.Value
}

// secretValue reads one key of a secret through kubectl, decoded.
func secretValue(t *testing.T, s *harness.Server, ns, name, key string) string {
	t.Helper()
	out := s.MustKubectl(t, "get", "secret", "-n", ns, name, "-o", "jsonpath={.data."+key+"}")
	v, err := base64.StdEncoding.DecodeString(out)
	if err != nil {
		t.Fatalf("secret %s/%s: %q is not base64: %v", ns, name, out, err)
	}
	return string(v)
}

// TestEncryptionProviders stores a Secret through kubectl with each
// provider and looks for it in the raw database file: the plaintext must
// not be there and the value must carry the provider's prefix. A ConfigMap,
// which the configuration does not name, shows that plaintext is findable.
func TestEncryptionProviders(t *testing.T) {
	tests := []struct {
		name     string
		provider string
		prefix   string // "" for identity: the secret stays readable on disk
	}{
		{"aesgcm", "- aesgcm:\n      keys:\n      - name: key1\n        secret: " + aesKey(1, 32), "k8s:enc:aesgcm:v1:key1:"},
		{"aesgcm-128", "- aesgcm:\n      keys:\n      - name: short\n        secret: " + aesKey(2, 16), "k8s:enc:aesgcm:v1:short:"},
		{"aescbc", "- aescbc:\n      keys:\n      - name: key1\n        secret: " + aesKey(3, 32), "k8s:enc:aescbc:v1:key1:"},
		{"secretbox", "- secretbox:\n      keys:\n      - name: box\n        secret: " + aesKey(4, 32), "k8s:enc:secretbox:v1:box:"},
		{"identity", "- identity: {}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := encryptionConfig(t, filepath.Join(t.TempDir(), "enc.yaml"), "- resources: [secrets]\n  providers:\n  "+tt.provider+"\n")
			s := harness.Start(t, "--encryption-provider-config", cfg)
			secret := "secret-marker-" + tt.name + "-7f3a9c"
			plain := "configmap-marker-" + tt.name + "-51b2e8"
			s.MustKubectl(t, "create", "secret", "generic", "s1", "--from-literal=password="+secret)
			s.MustKubectl(t, "create", "configmap", "c1", "--from-literal=v="+plain)
			if got := secretValue(t, s, "default", "s1", "password"); got != secret {
				t.Fatalf("secret reads back %q, want %q", got, secret)
			}
			s.Stop()

			raw, err := os.ReadFile(dbPath(s))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(raw, []byte(plain)) {
				t.Fatal("the ConfigMap's value is not in the database file: this test cannot see plaintext")
			}
			if tt.prefix == "" {
				if !bytes.Contains(raw, []byte(secret)) {
					t.Error("identity: the secret is not stored as it is")
				}
				return
			}
			if bytes.Contains(raw, []byte(secret)) {
				t.Errorf("%s: the secret's plaintext is in the database file", tt.name)
			}
			v := storedValue(t, rawStore(t, s), "/registry/secrets/default/s1")
			if !bytes.HasPrefix(v, []byte(tt.prefix)) {
				t.Errorf("stored value starts %q, want prefix %q", v[:min(len(v), 40)], tt.prefix)
			}
		})
	}
}

// TestEncryptionRotation follows the documented key rotation: a new key
// goes first, the server restarts, every secret is rewritten with
// `kubectl get secrets -A -o json | kubectl replace -f -`, and the old key
// is removed.
func TestEncryptionRotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "enc.yaml")
	key1 := "    - name: key1\n        secret: " + aesKey(1, 32) + "\n"
	key2 := "    - name: key2\n        secret: " + aesKey(2, 32) + "\n"
	aescbc := func(keys ...string) string {
		return "- resources: [secrets]\n  providers:\n  - aescbc:\n      keys:\n  " + strings.Join(keys, "  ")
	}
	encryptionConfig(t, path, aescbc(key1))
	s := harness.Start(t, "--encryption-provider-config", path)
	want := map[string]string{}
	for _, ns := range []string{"default", "team-a", "team-b"} {
		if ns != "default" {
			s.MustKubectl(t, "create", "namespace", ns)
		}
		for i := range 3 {
			name := "s" + strconv.Itoa(i)
			s.MustKubectl(t, "create", "secret", "generic", "-n", ns, name, "--from-literal=v="+ns+"-"+name)
			want[ns+"/"+name] = ns + "-" + name
		}
	}
	prefixes := func() map[string]int {
		t.Helper()
		s.Stop()
		db := rawStore(t, s)
		res, err := db.List(context.Background(), "/registry/secrets/", storage.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n := map[string]int{}
		for _, kv := range res.KVs {
			n[string(regexp.MustCompile(`^k8s:enc:[a-z0-9]+:v[12]:[^:]+:`).Find(kv.Value))]++
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := prefixes(); got["k8s:enc:aescbc:v1:key1:"] != 9 || len(got) != 1 {
		t.Fatalf("before rotation: %v", got)
	}

	// The new key first, the old one still there to read.
	encryptionConfig(t, path, aescbc(key2, key1))
	s.Restart()
	for k, v := range want {
		ns, name, _ := strings.Cut(k, "/")
		if got := secretValue(t, s, ns, name, "v"); got != v {
			t.Fatalf("%s reads %q, want %q", k, got, v)
		}
	}
	before := s.MustKubectl(t, "get", "secret", "-n", "team-a", "s0", "-o", "jsonpath={.metadata.resourceVersion}")
	all := s.MustKubectl(t, "get", "secrets", "-A", "-o", "json")
	replace := s.KubectlCommand(context.Background(), t, "replace", "-f", "-")
	replace.Stdin = strings.NewReader(all)
	if out, err := replace.CombinedOutput(); err != nil {
		t.Fatalf("kubectl replace: %v\n%s", err, out)
	}
	after := s.MustKubectl(t, "get", "secret", "-n", "team-a", "s0", "-o", "jsonpath={.metadata.resourceVersion}")
	if before == after {
		t.Error("replacing a secret stored with the old key did not rewrite it")
	}
	// A second replace finds nothing stale: no write, no new resourceVersion.
	all = s.MustKubectl(t, "get", "secrets", "-A", "-o", "json")
	replace = s.KubectlCommand(context.Background(), t, "replace", "-f", "-")
	replace.Stdin = strings.NewReader(all)
	if out, err := replace.CombinedOutput(); err != nil {
		t.Fatalf("kubectl replace: %v\n%s", err, out)
	}
	if again := s.MustKubectl(t, "get", "secret", "-n", "team-a", "s0", "-o", "jsonpath={.metadata.resourceVersion}"); again != after {
		t.Errorf("an unchanged, current secret was rewritten: resourceVersion %s -> %s", after, again)
	}
	if got := prefixes(); got["k8s:enc:aescbc:v1:key2:"] != 9 || len(got) != 1 {
		t.Fatalf("after kubectl replace: %v", got)
	}

	// The old key is gone; everything still reads.
	encryptionConfig(t, path, aescbc(key2))
	s.Restart()
	for k, v := range want {
		ns, name, _ := strings.Cut(k, "/")
		if got := secretValue(t, s, ns, name, "v"); got != v {
			t.Fatalf("%s reads %q after removing the old key, want %q", k, got, v)
		}
	}
}

// TestEncryptionReadFailures: a wrong key or a corrupted value fails that
// object only, with an error naming the storage key and the encryption
// key; everything else is served.
func TestEncryptionReadFailures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "enc.yaml")
	config := func(secret string) {
		encryptionConfig(t, path, "- resources: [secrets]\n  providers:\n  - aesgcm:\n      keys:\n      - name: key1\n        secret: "+secret+"\n")
	}
	config(aesKey(1, 32))
	s := harness.Start(t, "--encryption-provider-config", path)
	s.MustKubectl(t, "create", "secret", "generic", "s1", "--from-literal=v=one")
	s.MustKubectl(t, "create", "secret", "generic", "s2", "--from-literal=v=two")
	s.MustKubectl(t, "create", "configmap", "c1", "--from-literal=v=plain")
	s.Stop()

	t.Run("wrong key", func(t *testing.T) {
		config(aesKey(9, 32))
		s.Restart()
		_, stderr, err := s.Kubectl(t, "get", "secret", "s1")
		if err == nil {
			t.Fatal("a secret written with another key was served")
		}
		for _, want := range []string{`Internal error occurred: unable to transform key "/registry/secrets/default/s1"`, `"k8s:enc:aesgcm:v1:key1:"`, "message authentication failed"} {
			if !strings.Contains(stderr, want) {
				t.Errorf("error lacks %q:\n%s", want, stderr)
			}
		}
		if strings.Contains(stderr, aesKey(9, 32)) || strings.Contains(stderr, aesKey(1, 32)) {
			t.Error("the error shows key material")
		}
		if got := s.MustKubectl(t, "get", "configmap", "c1", "-o", "jsonpath={.data.v}"); got != "plain" {
			t.Errorf("configmap reads %q", got)
		}
		_, stderr, err = s.Kubectl(t, "get", "secrets")
		for _, want := range []string{"StorageReadError", "failed to read one or more secrets from the storage", `unable to transform key "/registry/secrets/default/s1"`, "(and 1 more)"} {
			if err == nil || !strings.Contains(stderr, want) {
				t.Errorf("a list holding two undecryptable secrets lacks %q: err=%v\n%s", want, err, stderr)
			}
		}
		s.MustKubectl(t, "get", "--raw", "/readyz")
		s.Stop()
	})

	t.Run("corrupted value", func(t *testing.T) {
		config(aesKey(1, 32))
		db := rawStore(t, s)
		kv, err := db.Get(context.Background(), "/registry/secrets/default/s2")
		if err != nil {
			t.Fatal(err)
		}
		v := bytes.Clone(kv.Value)
		v[len(v)-5] ^= 0x40
		if _, err := db.Update(context.Background(), kv.Key, v, kv.ModRevision); err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		s.Restart()
		if got := secretValue(t, s, "default", "s1", "v"); got != "one" {
			t.Errorf("s1 reads %q", got)
		}
		_, stderr, err := s.Kubectl(t, "get", "secret", "s2")
		if err == nil || !strings.Contains(stderr, `unable to transform key "/registry/secrets/default/s2"`) || !strings.Contains(stderr, "k8s:enc:aesgcm:v1:key1:") {
			t.Errorf("corrupted s2: err=%v\n%s", err, stderr)
		}
		s.MustKubectl(t, "create", "secret", "generic", "s3", "--from-literal=v=three")
		if got := secretValue(t, s, "default", "s3", "v"); got != "three" {
			t.Errorf("s3 reads %q", got)
		}

		// A corrupt object goes only by an unsafe delete, which needs its
		// own permission and is refused for objects that read.
		unsafe := "?ignoreStoreReadErrorWithClusterBreakingPotential=true"
		if _, stderr, err := s.Kubectl(t, "delete", "secret", "s2"); err == nil {
			t.Errorf("a normal delete of a corrupt object succeeded:\n%s", stderr)
		}
		s.MustKubectl(t, "create", "role", "secret-deleter", "--verb=get,delete", "--resource=secrets")
		s.MustKubectl(t, "create", "rolebinding", "secret-deleter", "--role=secret-deleter", "--user=bob")
		if _, stderr, err := s.Kubectl(t, "delete", "--as=bob", "--raw", "/api/v1/namespaces/default/secrets/s2"+unsafe); err == nil ||
			!strings.Contains(stderr, `not permitted to do \"unsafe-delete-ignore-read-errors\"`) && !strings.Contains(stderr, `not permitted to do "unsafe-delete-ignore-read-errors"`) {
			t.Errorf("unsafe delete without the permission: err=%v\n%s", err, stderr)
		}
		if _, stderr, err := s.Kubectl(t, "delete", "--raw", "/api/v1/namespaces/default/secrets/s1"+unsafe); err == nil || !strings.Contains(stderr, "unsafe deletion is not allowed because the object is decodable from storage") {
			t.Errorf("unsafe delete of a readable object: err=%v\n%s", err, stderr)
		}
		s.MustKubectl(t, "delete", "--raw", "/api/v1/namespaces/default/secrets/s2"+unsafe+"&dryRun=All")
		// A watch sees the delete of the corrupt object as kube-apiserver
		// reports it: an error event of reason StorageReadError.
		rv := s.MustKubectl(t, "get", "secret", "s3", "-o", "jsonpath={.metadata.resourceVersion}")
		w, err := s.Client(t).CoreV1().Secrets("default").Watch(context.Background(), metav1.ListOptions{ResourceVersion: rv})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		s.MustKubectl(t, "delete", "--raw", "/api/v1/namespaces/default/secrets/s2"+unsafe)
		select {
		case ev := <-w.ResultChan():
			st, ok := ev.Object.(*metav1.Status)
			if ev.Type != watch.Error || !ok || st.Reason != metav1.StatusReasonStoreReadError || !strings.Contains(st.Message, "saw a DELETED event, but object data is corrupt") {
				t.Errorf("watch event after the unsafe delete: %s %#v", ev.Type, ev.Object)
			}
		case <-time.After(waitTimeout):
			t.Error("no watch event after the unsafe delete")
		}
		if _, stderr, err := s.Kubectl(t, "get", "secret", "s2"); err == nil || !strings.Contains(stderr, "NotFound") {
			t.Errorf("s2 after the unsafe delete: err=%v\n%s", err, stderr)
		}
		if got := strings.TrimSpace(s.MustKubectl(t, "get", "secrets", "-o", "name")); got != "secret/s1\nsecret/s3" {
			t.Errorf("secrets after the unsafe delete: %q", got)
		}
	})
}

// TestEncryptionAutomaticReload edits the configuration of a running
// server: a valid change applies, an invalid one keeps the last good
// configuration, and both are counted.
func TestEncryptionAutomaticReload(t *testing.T) {
	path := filepath.Join(t.TempDir(), "enc.yaml")
	encryptionConfig(t, path, "- resources: [secrets]\n  providers:\n  - identity: {}\n")
	s := harness.Start(t, "--encryption-provider-config", path, "--encryption-provider-config-automatic-reload")
	s.MustKubectl(t, "get", "--raw", "/readyz/kms-providers")
	s.MustKubectl(t, "create", "secret", "generic", "before", "--from-literal=v=before-reload")

	reloads := func(status string) int {
		metrics := s.MustKubectl(t, "get", "--raw", "/metrics")
		m := regexp.MustCompile(`apiserver_encryption_config_controller_automatic_reloads_total\{apiserver_id_hash="sha256:[0-9a-f]+",status="` + status + `"\} (\d+)`).FindStringSubmatch(metrics)
		if m == nil {
			return 0
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	encryptionConfig(t, path, "- resources: [secrets]\n  providers:\n  - aesgcm:\n      keys:\n      - name: k1\n        secret: "+aesKey(5, 32)+"\n  - identity: {}\n")
	eventually(t, "reload applied", func() error {
		if n := reloads("success"); n != 1 {
			return fmt.Errorf("%d successful reloads", n)
		}
		return nil
	})
	s.MustKubectl(t, "create", "secret", "generic", "after", "--from-literal=v=after-reload")

	bad := aesKey(6, 7)
	encryptionConfig(t, path, "- resources: [secrets]\n  providers:\n  - aesgcm:\n      keys:\n      - name: k2\n        secret: "+bad+"\n")
	eventually(t, "invalid reload refused", func() error {
		if n := reloads("failure"); n < 1 {
			return fmt.Errorf("%d failed reloads", n)
		}
		return nil
	})
	s.MustKubectl(t, "create", "secret", "generic", "kept", "--from-literal=v=kept-config")
	for name, v := range map[string]string{"before": "before-reload", "after": "after-reload", "kept": "kept-config"} {
		if got := secretValue(t, s, "default", name, "v"); got != v {
			t.Errorf("%s reads %q", name, got)
		}
	}
	if !strings.Contains(s.Output(), "secret is not of the expected length, got 7, expected one of [16 24 32]") {
		t.Errorf("the server did not log why the reload failed:\n%s", s.Output())
	}
	if strings.Contains(s.Output(), bad) {
		t.Error("the server logged key material")
	}
	s.Stop()
	db := rawStore(t, s)
	if v := storedValue(t, db, "/registry/secrets/default/before"); !bytes.Contains(v, []byte("before-reload")) {
		t.Error("the secret written before the reload is not in clear text")
	}
	for _, name := range []string{"after", "kept"} {
		if v := storedValue(t, db, "/registry/secrets/default/"+name); !bytes.HasPrefix(v, []byte("k8s:enc:aesgcm:v1:k1:")) {
			t.Errorf("%s is stored as %q", name, v[:min(40, len(v))])
		}
	}
}

// TestEncryptionInvalidConfig: the server refuses to start on an invalid
// file, says where the problem is, and never prints the key.
func TestEncryptionInvalidConfig(t *testing.T) {
	secret := aesKey(7, 20)
	path := encryptionConfig(t, filepath.Join(t.TempDir(), "enc.yaml"), "- resources: [secrets]\n  providers:\n  - aescbc:\n      keys:\n      - name: k\n        secret: "+secret+"\n")
	out, err := runPortcullis(t, "serve", "--data-dir", t.TempDir(), "--secure-port", "0", "--encryption-provider-config", path)
	if err == nil {
		t.Fatalf("the server started:\n%s", out)
	}
	if want := `resources[0].providers[0].aescbc.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 20, expected one of [16 24 32]`; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if strings.Contains(out, secret) {
		t.Error("the key was printed")
	}
	out, err = runPortcullis(t, "serve", "--data-dir", t.TempDir(), "--secure-port", "0", "--encryption-provider-config-automatic-reload")
	if err == nil || !strings.Contains(out, "--encryption-provider-config-automatic-reload must be set with --encryption-provider-config") {
		t.Errorf("reload without a file: err=%v\n%s", err, out)
	}
}
