package kmsv2

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/portcullis/portcullis/internal/encryption/kmsv2/kmstest"
)

const key1 = "/registry/secrets/default/s1"

func TestNewValidatesConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no name", Config{Endpoint: "unix:///tmp/x.sock"}, "name is empty"},
		{"colon in name", Config{Name: "a:b", Endpoint: "unix:///tmp/x.sock"}, "must not contain ':'"},
		{"no endpoint", Config{Name: "a"}, "empty string as endpoint"},
		{"tcp", Config{Name: "a", Endpoint: "tcp://127.0.0.1:1"}, `unsupported scheme "tcp"`},
		{"relative", Config{Name: "a", Endpoint: "unix:x.sock"}, "want unix:///absolute/path"},
		{"host", Config{Name: "a", Endpoint: "unix://host/x.sock"}, "want unix:///absolute/path"},
		{"root only", Config{Name: "a", Endpoint: "unix:///"}, "no socket path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New: got %v, want ErrInvalidConfig containing %q", err, tt.want)
			}
		})
	}
}

func TestSocketAddress(t *testing.T) {
	tests := map[string]string{
		"unix:///var/run/kms.sock": "/var/run/kms.sock",
		"unix:///@kms":             "@kms",
		"unix:@kms":                "@kms",
	}
	for in, want := range tests {
		got, err := socketAddress(in)
		if err != nil || got != want {
			t.Errorf("socketAddress(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestAbstractSocket(t *testing.T) {
	name := "@portcullis-kmstest-" + strings.ReplaceAll(t.Name(), "/", "-")
	plugin := kmstest.New(kmstest.Options{})
	kmstest.Start(t, plugin, name)
	p, err := New(Config{Name: "abs", Endpoint: "unix:" + name, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Check(context.Background()); err != nil {
		t.Fatalf("Check over an abstract socket: %v", err)
	}
}

func TestPrefix(t *testing.T) {
	p, err := New(Config{Name: "my-kms", Endpoint: "unix:///nonexistent.sock"})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got, want := p.Prefix(), "k8s:enc:kms:v2:my-kms:"; got != want {
		t.Fatalf("Prefix() = %q, want %q", got, want)
	}
}

func TestRoundTrip(t *testing.T) {
	e := newEnv(t, withAnnotations(map[string][]byte{"version.kmstest.example.com": []byte("1")}))
	tests := []struct {
		name      string
		plaintext []byte
	}{
		{"empty", nil},
		{"small", []byte(`{"kind":"Secret"}`)},
		{"binary", []byte{0, 1, 2, 0xff, 0xfe}},
		{"1MiB", bytes.Repeat([]byte("x"), 1<<20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stored, err := e.p.ToStorage(context.Background(), tt.plaintext, []byte(key1))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(stored, tt.plaintext) && len(tt.plaintext) > 0 {
				t.Fatal("stored value contains the plaintext")
			}
			o, err := decodeObject(stored)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if o.keyID != kmstest.DefaultKeyID || o.sourceType != sourceHKDFSeed {
				t.Errorf("keyID %q type %s, want %q %s", o.keyID, o.sourceType, kmstest.DefaultKeyID, sourceHKDFSeed)
			}
			if got := string(o.annotations["version.kmstest.example.com"]); got != "1" {
				t.Errorf("annotation = %q, want the plugin's", got)
			}
			if got, want := len(o.data), infoSize+12+len(tt.plaintext)+16; got != want {
				t.Errorf("encryptedData is %d bytes, want %d (info, nonce, ciphertext, tag)", got, want)
			}
			out, stale, err := e.p.FromStorage(context.Background(), stored, []byte(key1))
			if err != nil {
				t.Fatal(err)
			}
			if stale || !bytes.Equal(out, tt.plaintext) {
				t.Fatalf("FromStorage: stale %v, equal %v", stale, bytes.Equal(out, tt.plaintext))
			}
		})
	}
	// Two writes of one value differ: each derives its own key.
	a, b := mustToStorage(t, e.p, "same", key1), mustToStorage(t, e.p, "same", key1)
	if bytes.Equal(a, b) {
		t.Fatal("two writes of the same value are identical")
	}
	if got := e.plugin.Calls(kmstest.MethodEncrypt); got != 1 {
		t.Errorf("Encrypt calls = %d, want 1 (one seed for all writes)", got)
	}
}

func TestDataContextBinding(t *testing.T) {
	e := newEnv(t)
	stored := mustToStorage(t, e.p, "secret", key1)

	tests := []struct {
		name    string
		stored  []byte
		dataCtx string
	}{
		{"other key", stored, "/registry/secrets/default/s2"},
		{"empty key", stored, ""},
		{"tampered ciphertext", flipByte(stored, 40), key1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := e.p.FromStorage(context.Background(), tt.stored, []byte(tt.dataCtx))
			if !errors.Is(err, ErrDecryptData) {
				t.Fatalf("got %v, want ErrDecryptData", err)
			}
			if !strings.Contains(err.Error(), `"kms1"`) {
				t.Errorf("error %q does not name the provider", err)
			}
		})
	}
}

// flipByte changes one byte of encryptedData (whose bytes start after the
// tag and length of field 1).
func flipByte(b []byte, i int) []byte {
	out := bytes.Clone(b)
	out[i] ^= 0x80
	return out
}

func TestRotation(t *testing.T) {
	e := newEnv(t)
	old := mustToStorage(t, e.p, "v1", key1)

	e.plugin.SetKeyID("key-2")
	if err := e.p.Check(context.Background()); err != nil {
		t.Fatalf("Check after rotation: %v", err)
	}
	if got := e.plugin.Calls(kmstest.MethodEncrypt); got != 2 {
		t.Fatalf("Encrypt calls = %d, want 2 (a new seed for the new key id)", got)
	}

	got, stale := mustFromStorage(t, e.p, old, key1)
	if got != "v1" || !stale {
		t.Fatalf("old value: %q stale=%v, want v1 stale=true", got, stale)
	}
	fresh := mustToStorage(t, e.p, "v2", key1)
	o, err := decodeObject(fresh)
	if err != nil || o.keyID != "key-2" {
		t.Fatalf("new value key id %q (%v), want key-2", o.keyID, err)
	}
	if got, stale := mustFromStorage(t, e.p, fresh, key1); got != "v2" || stale {
		t.Fatalf("new value: %q stale=%v, want v2 stale=false", got, stale)
	}

	// A server started after the rotation reads the old value through
	// the plugin, which still knows key-1.
	p2 := e.newProvider(t, Config{})
	if err := p2.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, stale := mustFromStorage(t, p2, old, key1); got != "v1" || !stale {
		t.Fatalf("old value on a new server: %q stale=%v", got, stale)
	}

	// An unchanged key id keeps the seed.
	if err := e.p.Check(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := e.plugin.Calls(kmstest.MethodEncrypt); got != 3 {
		t.Fatalf("Encrypt calls = %d, want 3 (two for e.p, one for p2)", got)
	}
}

func TestRotationMismatch(t *testing.T) {
	// Status says key-2, but by the time Encrypt runs the plugin uses
	// key-3: the rotation is refused and the old seed stays.
	e := newEnv(t)
	e.plugin.SetKeyID("key-2")
	e.plugin.SetDelay(0)
	orig := e.p.client
	e.p.client = &racingClient{KeyManagementServiceClient: orig, beforeEncrypt: func() { e.plugin.SetKeyID("key-3") }}
	err := e.p.Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "Encrypt returned key ID hash") {
		t.Fatalf("Check: %v, want a key id mismatch", err)
	}
	o, _ := decodeObject(mustToStorage(t, e.p, "x", key1))
	if o.keyID != kmstest.DefaultKeyID {
		t.Fatalf("writes use %q, want the old key id", o.keyID)
	}
}

func TestDEKCache(t *testing.T) {
	e := newEnv(t)
	stored := mustToStorage(t, e.p, "cached", key1)

	// The writer never asks the plugin to decrypt its own seed.
	mustFromStorage(t, e.p, stored, key1)
	if got := e.plugin.Calls(kmstest.MethodDecrypt); got != 0 {
		t.Fatalf("Decrypt calls after reading own write = %d, want 0", got)
	}

	// Another server decrypts the seed once, even with many concurrent
	// first reads.
	p2 := e.newProvider(t, Config{})
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if _, _, err := p2.FromStorage(context.Background(), stored, []byte(key1)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	mustFromStorage(t, p2, stored, key1)
	if got := e.plugin.Calls(kmstest.MethodDecrypt); got != 1 {
		t.Fatalf("Decrypt calls = %d, want 1", got)
	}
	if got := p2.cache.len(); got != 1 {
		t.Fatalf("cache size = %d, want 1", got)
	}
}

func TestCacheSweepsExpiredEntries(t *testing.T) {
	e := newEnv(t)
	stored := mustToStorage(t, e.p, "x", key1)
	p2 := e.newProvider(t, Config{})
	mustFromStorage(t, p2, stored, key1)
	// Expired entries are still used ...
	e.clock.Advance(cacheTTL + time.Minute)
	mustFromStorage(t, p2, stored, key1)
	if got := e.plugin.Calls(kmstest.MethodDecrypt); got != 1 {
		t.Fatalf("Decrypt calls = %d, want 1", got)
	}
	// ... until an insertion sweeps them.
	p2.cache.put(cacheKey{1}, &cacheEntry{})
	if got := p2.cache.len(); got != 1 {
		t.Fatalf("cache size after sweep = %d, want 1", got)
	}
}

func TestPluginNeverUp(t *testing.T) {
	sock := kmstest.SocketPath(t)
	p, err := New(Config{Name: "absent", Endpoint: kmstest.Endpoint(sock), Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatalf("New must not wait for the plugin: %v", err)
	}
	defer p.Close()

	err = returns(t, "ToStorage with the plugin absent", func() error {
		_, err := p.ToStorage(context.Background(), []byte("x"), []byte(key1))
		return err
	})
	if !errors.Is(err, ErrNoWriteKey) || !strings.Contains(err.Error(), `"absent"`) ||
		!strings.Contains(err.Error(), "has not yet answered") {
		t.Fatalf("ToStorage: %v, want ErrNoWriteKey naming the provider", err)
	}
	// The write waited for the plugin only as long as the timeout.
	if status.Code(unwrapStatus(err)) != codes.DeadlineExceeded {
		t.Fatalf("ToStorage: %v, want it ended by the timeout", err)
	}
	if err := p.LastHealth(); !errors.Is(err, ErrUnhealthy) {
		t.Fatalf("LastHealth: %v", err)
	}

	// The plugin comes up: a write polls it and succeeds, without waiting
	// for Run (within gRPC's reconnect backoff of at most half a second).
	plugin := kmstest.New(kmstest.Options{})
	kmstest.Start(t, plugin, sock)
	var stored []byte
	waitFor(t, "a write to succeed", func() bool {
		stored, err = p.ToStorage(context.Background(), []byte("x"), []byte(key1))
		return err == nil
	})
	if got, _ := mustFromStorage(t, p, stored, key1); got != "x" {
		t.Fatalf("read %q", got)
	}
	if err := p.LastHealth(); err != nil {
		t.Fatalf("LastHealth: %v", err)
	}
}

func TestPluginGoesDown(t *testing.T) {
	e := newEnv(t, withTimeout(500*time.Millisecond))
	stored := mustToStorage(t, e.p, "kept", key1)
	p2 := e.newProvider(t, Config{Name: "kms1", Timeout: 500 * time.Millisecond})
	mustFromStorage(t, p2, stored, key1) // p2 caches the seed
	e.stop()

	// Reads of cached seeds go on.
	for _, p := range []*Provider{e.p, p2} {
		if got, _ := mustFromStorage(t, p, stored, key1); got != "kept" {
			t.Fatalf("read %q", got)
		}
	}
	// Writes go on within the lease ...
	mustToStorage(t, e.p, "within lease", key1)
	if err := e.p.Check(context.Background()); !errors.Is(err, ErrUnhealthy) {
		t.Fatalf("Check with the plugin down: %v", err)
	}
	// ... and fail after it, with a clear error.
	e.clock.Advance(writeLease + time.Second)
	_, err := e.p.ToStorage(context.Background(), []byte("late"), []byte(key1))
	if !errors.Is(err, ErrNoWriteKey) || !strings.Contains(err.Error(), "expired at") ||
		!strings.Contains(err.Error(), `"kms1"`) {
		t.Fatalf("ToStorage after the lease: %v", err)
	}
	if got, _ := mustFromStorage(t, e.p, stored, key1); got != "kept" {
		t.Fatalf("read after the lease: %q", got)
	}
	// A value whose seed is not cached cannot be read.
	p3 := e.newProvider(t, Config{Name: "kms1", Timeout: 500 * time.Millisecond})
	if _, _, err := p3.FromStorage(context.Background(), stored, []byte(key1)); !errors.Is(err, ErrDecryptDEK) {
		t.Fatalf("uncached read with the plugin down: %v", err)
	}

	// The plugin returns: a write polls it and goes through.
	kmstest.Start(t, e.plugin, e.socket)
	waitFor(t, "a write to succeed", func() bool {
		_, err := e.p.ToStorage(context.Background(), []byte("back"), []byte(key1))
		return err == nil
	})
}

func TestSlowPlugin(t *testing.T) {
	const timeout = 200 * time.Millisecond
	e := newEnv(t, withTimeout(timeout))
	stored := mustToStorage(t, e.p, "x", key1)
	// An hour's delay and callers without a deadline: only the provider's
	// timeout can end the calls.
	e.plugin.SetDelay(time.Hour)

	check := func(name string, f func() error) {
		t.Helper()
		if err := returns(t, name, f); status.Code(unwrapStatus(err)) != codes.DeadlineExceeded {
			t.Errorf("%s: %v, want DeadlineExceeded", name, err)
		}
	}
	check("Check", func() error { return e.p.Check(context.Background()) })
	p2 := e.newProvider(t, Config{Name: "kms1", Timeout: timeout})
	check("uncached FromStorage", func() error {
		_, _, err := p2.FromStorage(context.Background(), stored, []byte(key1))
		return err
	})
}

func TestCallerCancellation(t *testing.T) {
	e := newEnv(t)
	stored := mustToStorage(t, e.p, "x", key1)
	e.plugin.SetDelay(time.Second)
	p2 := e.newProvider(t, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := p2.FromStorage(ctx, stored, []byte(key1)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("FromStorage with a short ctx: %v", err)
	}
	// The Decrypt went on without the caller and filled the cache.
	e.plugin.SetDelay(0)
	waitFor(t, "the Decrypt to fill the cache", func() bool { return p2.cache.len() > 0 })
	mustFromStorage(t, p2, stored, key1)
	if got := e.plugin.Calls(kmstest.MethodDecrypt); got != 1 {
		t.Fatalf("Decrypt calls = %d, want 1", got)
	}
}

func TestPluginErrors(t *testing.T) {
	t.Run("Encrypt", func(t *testing.T) {
		e := newEnvNoProbe(t)
		e.plugin.SetFail(kmstest.MethodEncrypt, true)
		err := e.p.Check(context.Background())
		if !errors.Is(err, ErrUnhealthy) || !strings.Contains(err.Error(), "failed to encrypt DEK seed") {
			t.Fatalf("Check: %v", err)
		}
		_, err = e.p.ToStorage(context.Background(), []byte("x"), []byte(key1))
		if !errors.Is(err, ErrNoWriteKey) || status.Code(unwrapStatus(err)) != codes.Internal {
			t.Fatalf("ToStorage: %v, want ErrNoWriteKey carrying the plugin's Internal", err)
		}
	})
	t.Run("Decrypt", func(t *testing.T) {
		e := newEnv(t)
		stored := mustToStorage(t, e.p, "x", key1)
		e.plugin.SetFail(kmstest.MethodDecrypt, true)
		p2 := e.newProvider(t, Config{})
		_, _, err := p2.FromStorage(context.Background(), stored, []byte(key1))
		if !errors.Is(err, ErrDecryptDEK) || status.Code(unwrapStatus(err)) != codes.Internal {
			t.Fatalf("FromStorage: %v", err)
		}
		if !strings.Contains(err.Error(), hashIfNotEmpty(kmstest.DefaultKeyID)) {
			t.Errorf("error %q does not name the key id hash", err)
		}
		// A failure is not cached.
		e.plugin.SetFail(kmstest.MethodDecrypt, false)
		mustFromStorage(t, p2, stored, key1)
	})
	t.Run("Status", func(t *testing.T) {
		e := newEnv(t)
		e.plugin.SetFail(kmstest.MethodStatus, true)
		err := e.p.Check(context.Background())
		if !errors.Is(err, ErrUnhealthy) || !strings.Contains(err.Error(), "failed to perform status section of the healthz check") {
			t.Fatalf("Check: %v", err)
		}
		// The seed's lease still runs.
		mustToStorage(t, e.p, "x", key1)
	})
	t.Run("wrong seed", func(t *testing.T) {
		// A plugin that "decrypts" to something shorter than a seed.
		e := newEnv(t)
		stored := mustToStorage(t, e.p, "x", key1)
		p2 := e.newProvider(t, Config{})
		p2.client = &racingClient{KeyManagementServiceClient: p2.client, shortPlaintext: true}
		_, _, err := p2.FromStorage(context.Background(), stored, []byte(key1))
		if !errors.Is(err, ErrDecryptDEK) || !strings.Contains(err.Error(), "invalid seed length") {
			t.Fatalf("FromStorage: %v", err)
		}
	})
}

// unwrapStatus finds the gRPC status error in a chain.
func unwrapStatus(err error) error {
	var s interface{ GRPCStatus() *status.Status }
	if errors.As(err, &s) {
		return s.(error)
	}
	return nil
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(*kmstest.Plugin)
		want    string // "" for healthy
		invalid string // invalid_key_id_from_status_total label
	}{
		{name: "ok", setup: func(*kmstest.Plugin) {}},
		{name: "v2beta1", setup: func(p *kmstest.Plugin) { p.SetVersion("v2beta1") }},
		{name: "unhealthy", setup: func(p *kmstest.Plugin) { p.SetHealthz("disk on fire") }, want: "got unexpected healthz status: disk on fire"},
		{name: "wrong version", setup: func(p *kmstest.Plugin) { p.SetVersion("v1") }, want: "expected KMSv2 API version v2, got v1"},
		{name: "empty key id", setup: func(p *kmstest.Plugin) { p.SetKeyID("") }, want: `got invalid KMSv2 KeyID hash "": keyID is empty`, invalid: keyIDEmpty},
		{name: "long key id", setup: func(p *kmstest.Plugin) { p.SetKeyID(strings.Repeat("k", 1025)) }, want: `got invalid KMSv2 KeyID hash "` + hashIfNotEmpty(strings.Repeat("k", 1025)) + `": keyID is 1025 bytes, which exceeds the max size of 1024`, invalid: keyIDTooLong},
		{name: "several", setup: func(p *kmstest.Plugin) { p.SetHealthz("bad"); p.SetVersion("v3") }, want: "[got unexpected healthz status: bad, expected KMSv2 API version v2, got v3]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnvNoProbe(t, withName("check"))
			tt.setup(e.plugin)
			err := e.p.Check(context.Background())
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrUnhealthy) {
				t.Fatalf("Check: %v, want ErrUnhealthy", err)
			}
			if want := `kmsv2 provider "check" is not healthy: ` + tt.want; err.Error() != want {
				t.Fatalf("Check:\n got %s\nwant %s", err, want)
			}
			if !errors.Is(e.p.LastHealth(), ErrUnhealthy) {
				t.Fatalf("LastHealth: %v", e.p.LastHealth())
			}
			if tt.invalid != "" {
				if got := counterValue(t, e.reg, "apiserver_envelope_encryption_invalid_key_id_from_status_total", map[string]string{"provider_name": "check", "error": tt.invalid}); got != 1 {
					t.Fatalf("invalid key id counter = %v, want 1", got)
				}
			}
		})
	}
}

func TestCheckVersionMustNotChange(t *testing.T) {
	e := newEnv(t)
	e.plugin.SetVersion("v2beta1")
	err := e.p.Check(context.Background())
	if err == nil || !strings.Contains(err.Error(), "KMSv2 API version should not change after the initial status response version v2, got v2beta1") {
		t.Fatalf("Check: %v", err)
	}
}

func TestUnhealthyPluginWithValidKeyStillRotates(t *testing.T) {
	e := newEnv(t)
	e.plugin.SetHealthz("degraded")
	e.plugin.SetKeyID("key-2")
	if err := e.p.Check(context.Background()); !errors.Is(err, ErrUnhealthy) {
		t.Fatalf("Check: %v", err)
	}
	o, _ := decodeObject(mustToStorage(t, e.p, "x", key1))
	if o.keyID != "key-2" {
		t.Fatalf("writes use %q, want key-2", o.keyID)
	}
}

func TestRun(t *testing.T) {
	e := newEnvNoProbe(t)
	e.p.healthyInterval = 20 * time.Millisecond
	e.p.unhealthyInterval = 20 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.p.Run(ctx)
	}()

	waitFor(t, "first poll", func() bool { return e.p.LastHealth() == nil })
	e.plugin.SetKeyID("key-2")
	waitFor(t, "rotation", func() bool {
		st := e.p.state.Load()
		return st != nil && st.keyID == "key-2"
	})
	e.plugin.SetHealthz("sick")
	waitFor(t, "unhealthy", func() bool { return errors.Is(e.p.LastHealth(), ErrUnhealthy) })

	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after ctx ended")
	}
}

func TestRunStopsOnClose(t *testing.T) {
	e := newEnvNoProbe(t)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.p.Run(context.Background())
	}()
	waitFor(t, "first poll", func() bool { return e.p.LastHealth() == nil })
	e.p.Close()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after Close")
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// returns runs f and returns its error, failing the test if f does not
// return within a minute: the caller has made sure that f can only block
// by waiting for something that will not come.
func returns(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("%s never returned", what)
		return nil
	}
}

// waitingForProbe is how many goroutines wait in probe for the poll in
// flight (blocked on probeMu), read from their stacks.
func waitingForProbe() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		if strings.Contains(header, "[sync.Mutex.Lock") && strings.Contains(g, "kmsv2.(*Provider).probe(") {
			count++
		}
	}
	return count
}

// TestConcurrentWritesShareOnePoll: writes that find no usable key while a
// poll is in flight wait for it and take its result, instead of each
// polling the plugin (a burst of writes while the plugin is away would
// otherwise wait one timeout each, one after the other).
func TestConcurrentWritesShareOnePoll(t *testing.T) {
	for _, tt := range []struct {
		name    string
		fail    bool
		wantErr error
	}{
		{name: "the poll succeeds"},
		{name: "the poll fails", fail: true, wantErr: ErrNoWriteKey},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plugin := kmstest.New(kmstest.Options{})
			plugin.SetFail(kmstest.MethodStatus, tt.fail)
			sock := kmstest.SocketPath(t)
			kmstest.Start(t, plugin, sock)
			release := plugin.Hold(kmstest.MethodStatus)
			t.Cleanup(release)
			p, err := New(Config{Name: "kms1", Endpoint: kmstest.Endpoint(sock), Timeout: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()

			const n = 8
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() {
					if _, err := p.ToStorage(context.Background(), []byte("x"), []byte(key1)); !errors.Is(err, tt.wantErr) {
						t.Errorf("ToStorage: %v, want %v", err, tt.wantErr)
					}
				})
			}
			// One write polls, held by the plugin; the others wait for it.
			waitFor(t, "the first poll", func() bool { return plugin.Calls(kmstest.MethodStatus) == 1 })
			waitFor(t, "the other writes to wait for the poll", func() bool { return waitingForProbe() == n-1 })
			release()
			wg.Wait()
			if got := plugin.Calls(kmstest.MethodStatus); got != 1 {
				t.Fatalf("%d concurrent writes made %d status polls, want 1", n, got)
			}
		})
	}
}

// TestHealthzReusesRecentResults: the health endpoints reuse a healthy
// result for 20 s and a failure for 3 s before asking the plugin again.
func TestHealthzReusesRecentResults(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if err := e.p.Healthz(ctx); err != nil {
		t.Fatal(err)
	}
	calls := e.plugin.Calls(kmstest.MethodStatus)
	e.plugin.SetHealthz("sick")
	e.clock.Advance(19 * time.Second)
	if err := e.p.Healthz(ctx); err != nil || e.plugin.Calls(kmstest.MethodStatus) != calls {
		t.Fatalf("within 20 s: err=%v, Status calls %d -> %d", err, calls, e.plugin.Calls(kmstest.MethodStatus))
	}
	e.clock.Advance(2 * time.Second)
	if err := e.p.Healthz(ctx); err == nil {
		t.Fatal("a sick plugin is healthy after 21 s")
	}
	calls = e.plugin.Calls(kmstest.MethodStatus)
	e.plugin.SetHealthz("ok")
	e.clock.Advance(2 * time.Second)
	if err := e.p.Healthz(ctx); err == nil || e.plugin.Calls(kmstest.MethodStatus) != calls {
		t.Fatalf("a failure is not reused within 3 s: err=%v", err)
	}
	e.clock.Advance(2 * time.Second)
	if err := e.p.Healthz(ctx); err != nil {
		t.Fatalf("after 4 s: %v", err)
	}
}
