package encryption

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/encryption/kmsv2/kmstest"
	"github.com/portcullis/portcullis/internal/storage"
	"github.com/portcullis/portcullis/internal/storage/bbolt"
)

var resources = []Resource{
	{KeyPrefix: "/registry/secrets/", GroupResource: schema.GroupResource{Resource: "secrets"}},
	{KeyPrefix: "/registry/configmaps/", GroupResource: schema.GroupResource{Resource: "configmaps"}},
	{KeyPrefix: "/registry/apps/deployments/", GroupResource: schema.GroupResource{Group: "apps", Resource: "deployments"}},
}

func key(b byte) string { return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{b}, 32)) }

// encConfig is an EncryptionConfiguration with the given resources list.
func encConfig(list string) string {
	return "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n" + list
}

func gcm(name string, b byte) string {
	return "  - aesgcm:\n      keys:\n      - name: " + name + "\n        secret: " + key(b) + "\n"
}

// newStore opens a bbolt store under config text cfg and returns the
// encrypting store and the raw one beneath it.
func newStore(t *testing.T, cfg string, reg prometheus.Registerer) (*Store, storage.Store, string) {
	t.Helper()
	dir := t.TempDir()
	raw, err := bbolt.Open(filepath.Join(dir, "db"), bbolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "enc.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := New(raw, Options{ConfigFile: path, Resources: resources, Registerer: reg})
	if err != nil {
		_ = raw.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, raw, path
}

func TestStoreEncryptsNamedResources(t *testing.T) {
	ctx := context.Background()
	s, raw, _ := newStore(t, encConfig("- resources: [secrets, deployments.apps]\n  providers:\n"+gcm("k1", 1)), nil)
	for _, k := range []string{"/registry/secrets/ns/a", "/registry/apps/deployments/ns/a", "/registry/configmaps/ns/a"} {
		kv, err := s.Create(ctx, k, []byte("value of "+k))
		if err != nil || string(kv.Value) != "value of "+k {
			t.Fatalf("create %s: %q %v", k, kv.Value, err)
		}
	}
	tests := []struct {
		key       string
		encrypted bool
	}{
		{"/registry/secrets/ns/a", true},
		{"/registry/apps/deployments/ns/a", true},
		{"/registry/configmaps/ns/a", false},
	}
	for _, tt := range tests {
		stored, err := raw.Get(ctx, tt.key)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.HasPrefix(stored.Value, []byte("k8s:enc:aesgcm:v1:k1:")); got != tt.encrypted {
			t.Errorf("%s: encrypted=%v, want %v (%q)", tt.key, got, tt.encrypted, stored.Value)
		}
		kv, err := s.Get(ctx, tt.key)
		if err != nil || string(kv.Value) != "value of "+tt.key || kv.Stale {
			t.Errorf("get %s: %q stale=%v %v", tt.key, kv.Value, kv.Stale, err)
		}
	}
	res, err := s.List(ctx, "/registry/secrets/", storage.ListOptions{})
	if err != nil || len(res.KVs) != 1 || string(res.KVs[0].Value) != "value of /registry/secrets/ns/a" {
		t.Fatalf("list: %+v %v", res, err)
	}
	// A value moved under another key does not decrypt: the key is bound.
	stored, _ := raw.Get(ctx, "/registry/secrets/ns/a")
	if _, err := raw.Create(ctx, "/registry/secrets/ns/b", stored.Value); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "/registry/secrets/ns/b"); err == nil || !strings.Contains(err.Error(), `unable to transform key "/registry/secrets/ns/b"`) {
		t.Fatalf("moved value: %v", err)
	}
	if _, err := s.List(ctx, "/registry/secrets/", storage.ListOptions{}); err == nil {
		t.Fatal("a list holding an undecryptable value succeeded")
	}
	prev, _, err := s.Delete(ctx, "/registry/secrets/ns/a", 0)
	if err != nil || string(prev.Value) != "value of /registry/secrets/ns/a" {
		t.Fatalf("delete: %q %v", prev.Value, err)
	}
}

func TestStoreWatchDecrypts(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, raw, _ := newStore(t, encConfig("- resources: [secrets]\n  providers:\n"+gcm("k1", 1)), nil)
	w, err := s.Watch(ctx, "/registry/secrets/", 0)
	if err != nil {
		t.Fatal(err)
	}
	kv, _ := s.Create(ctx, "/registry/secrets/ns/a", []byte("one"))
	_, _ = s.Update(ctx, "/registry/secrets/ns/a", []byte("two"), kv.ModRevision)
	// A value no provider reads ends the watch with an error.
	_, _ = raw.Create(ctx, "/registry/secrets/ns/bad", []byte("k8s:enc:aesgcm:v1:other:xxxx"))
	want := []string{"one", "two"}
	for i := 0; i < 3; i++ {
		select {
		case ev := <-w:
			if i < 2 {
				if ev.Type == storage.EventError || string(ev.KV.Value) != want[i] {
					t.Fatalf("event %d: %+v", i, ev)
				}
				if i == 1 && (ev.PrevKV == nil || string(ev.PrevKV.Value) != "one") {
					t.Fatalf("update's previous value: %+v", ev.PrevKV)
				}
				continue
			}
			if ev.Type != storage.EventError || !strings.Contains(ev.Err.Error(), `no matching prefix found for "k8s:enc:aesgcm:v1:other:"`) {
				t.Fatalf("event %d: %+v", i, ev)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no event %d", i)
		}
	}
	select {
	case _, ok := <-w:
		if ok {
			t.Fatal("the watch went on after its error")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the watch was not closed after its error")
	}
}

func TestStoreStaleAndReload(t *testing.T) {
	ctx := context.Background()
	reg := prometheus.NewRegistry()
	s, raw, path := newStore(t, encConfig("- resources: [secrets]\n  providers:\n"+gcm("k1", 1)), reg)
	if _, err := s.Create(ctx, "/registry/secrets/ns/a", []byte("v")); err != nil {
		t.Fatal(err)
	}
	// A new key goes first: the old value still reads, marked stale.
	next := encConfig("- resources: [secrets]\n  providers:\n" + gcm("k2", 2) + gcm("k1", 1))
	if err := s.apply(ctx, []byte(next), "h2"); err != nil {
		t.Fatal(err)
	}
	kv, err := s.Get(ctx, "/registry/secrets/ns/a")
	if err != nil || !kv.Stale || string(kv.Value) != "v" {
		t.Fatalf("after rotation: %q stale=%v %v", kv.Value, kv.Stale, err)
	}
	if _, err := s.Update(ctx, kv.Key, kv.Value, kv.ModRevision); err != nil {
		t.Fatal(err)
	}
	if stored, _ := raw.Get(ctx, kv.Key); !bytes.HasPrefix(stored.Value, []byte("k8s:enc:aesgcm:v1:k2:")) {
		t.Fatalf("rewritten as %q", stored.Value)
	}
	if kv, _ := s.Get(ctx, kv.Key); kv.Stale {
		t.Fatal("a value written with the current key is stale")
	}
	// An invalid configuration is refused and the last good one stays.
	if err := s.apply(ctx, []byte(encConfig("- resources: [secrets]\n  providers: []\n")), "h3"); err == nil {
		t.Fatal("an invalid configuration was applied")
	}
	if _, err := s.Create(ctx, "/registry/secrets/ns/b", []byte("w")); err != nil {
		t.Fatal(err)
	}
	if stored, _ := raw.Get(ctx, "/registry/secrets/ns/b"); !bytes.HasPrefix(stored.Value, []byte("k8s:enc:aesgcm:v1:k2:")) {
		t.Fatalf("written as %q after a refused reload", stored.Value)
	}
	// Encryption removed for secrets: encrypted values must not pass for
	// clear text.
	if err := s.apply(ctx, []byte(encConfig("- resources: [configmaps]\n  providers:\n"+gcm("k1", 1))), "h4"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "/registry/secrets/ns/b"); err == nil || !strings.Contains(err.Error(), "identity transformer tried to read encrypted data") {
		t.Fatalf("encrypted value of an unconfigured resource: %v", err)
	}
	_ = path
	if n := testutil.CollectAndCount(reg, "apiserver_storage_transformation_operations_total"); n == 0 {
		t.Error("no transformation metrics")
	}
	if n := testutil.CollectAndCount(reg, "apiserver_encryption_config_controller_last_config_info"); n != 1 {
		t.Errorf("last_config_info series = %d", n)
	}
}

func TestTarget(t *testing.T) {
	a, b := &target{resource: "secrets"}, &target{resource: "deployments.apps"}
	st := &state{root: "/registry/", byPrefix: map[string]*target{"/registry/secrets/": a, "/registry/apps/deployments/": b}}
	tests := []struct {
		key  string
		want *target
	}{
		{"/registry/secrets/ns/name", a},
		{"/registry/secrets/apps/deployments", a},
		{"/registry/apps/deployments/ns/name", b},
		{"/registry/apps/replicasets/ns/name", nil},
		{"/registry/configmaps/ns/name", nil},
		{"/registry/secrets", nil},
		{"/other/secrets/ns/name", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := st.target(tt.key); got != tt.want {
			t.Errorf("target(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
}

// BenchmarkStore measures a 1 KiB Secret written and read through each
// provider over a real bbolt store: Create includes the durable commit,
// Get the decryption (for KMS v2, with the DEK cached, as in steady state).
func BenchmarkStore(b *testing.B) {
	ctx := context.Background()
	value := bytes.Repeat([]byte("x"), 1024)
	socket := kmstest.SocketPath(b)
	kmstest.Start(b, kmstest.New(kmstest.Options{}), socket)
	for _, p := range []struct{ name, provider string }{
		{"identity", "  - identity: {}\n"},
		{"aesgcm", gcm("k1", 1)},
		{"aescbc", "  - aescbc:\n      keys:\n      - name: k1\n        secret: " + key(1) + "\n"},
		{"secretbox", "  - secretbox:\n      keys:\n      - name: k1\n        secret: " + key(1) + "\n"},
		{"kmsv2", "  - kms:\n      apiVersion: v2\n      name: bench\n      endpoint: " + kmstest.Endpoint(socket) + "\n"},
	} {
		b.Run(p.name, func(b *testing.B) {
			dir := b.TempDir()
			raw, err := bbolt.Open(filepath.Join(dir, "db"), bbolt.Options{})
			if err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(dir, "enc.yaml")
			_ = os.WriteFile(path, []byte(encConfig("- resources: [secrets]\n  providers:\n"+p.provider)), 0o600)
			s, err := New(raw, Options{ConfigFile: path, Resources: resources})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Create(ctx, "/registry/secrets/ns/get", value); err != nil {
				b.Fatal(err)
			}
			b.Run("Create1KiB", func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					i++
					if _, err := s.Create(ctx, "/registry/secrets/ns/c"+strconv.Itoa(i), value); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("Get1KiB", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := s.Get(ctx, "/registry/secrets/ns/get"); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// Custom resources are not in the resource list the store was built with
// (their CRDs come later); the configuration still governs them by group.
func TestStoreEncryptsCustomResources(t *testing.T) {
	ctx := context.Background()
	s, raw, _ := newStore(t, encConfig("- resources: [crontabs.stable.example.com]\n  providers:\n"+gcm("k1", 1)+
		"- resources: ['*.example.com']\n  providers:\n"+gcm("k2", 2)), nil)
	tests := []struct {
		key    string
		prefix string
	}{
		{key: "/registry/stable.example.com/crontabs/ns/a", prefix: "k8s:enc:aesgcm:v1:k1:"},
		{key: "/registry/example.com/widgets/b", prefix: "k8s:enc:aesgcm:v1:k2:"},
		{key: "/registry/other.example.com/widgets/b", prefix: ""},
		{key: "/registry/example.org/widgets/ns/c", prefix: ""},
		{key: "/registry/stable.example.com/crontabs/ns/d", prefix: "k8s:enc:aesgcm:v1:k1:"},
	}
	for _, tt := range tests {
		if _, err := s.Create(ctx, tt.key, []byte("value of "+tt.key)); err != nil {
			t.Fatalf("create %s: %v", tt.key, err)
		}
		stored, err := raw.Get(ctx, tt.key)
		if err != nil {
			t.Fatal(err)
		}
		if tt.prefix == "" && string(stored.Value) != "value of "+tt.key {
			t.Errorf("%s: stored %q, want clear text", tt.key, stored.Value)
		}
		if tt.prefix != "" && !bytes.HasPrefix(stored.Value, []byte(tt.prefix)) {
			t.Errorf("%s: stored %q, want it encrypted under %s", tt.key, stored.Value, tt.prefix)
		}
		kv, err := s.Get(ctx, tt.key)
		if err != nil || string(kv.Value) != "value of "+tt.key {
			t.Errorf("get %s: %q %v", tt.key, kv.Value, err)
		}
	}
}
