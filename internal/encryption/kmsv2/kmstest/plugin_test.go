package kmstest

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	kmsapi "k8s.io/kms/apis/v2"
)

func dial(t *testing.T, socket string) kmsapi.KeyManagementServiceClient {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return kmsapi.NewKeyManagementServiceClient(conn)
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestPlugin(t *testing.T) {
	ann := map[string][]byte{"v.example.com": []byte("1")}
	p := New(Options{Annotations: ann})
	sock := SocketPath(t)
	Start(t, p, sock)
	c := dial(t, sock)
	ctx := ctxT(t)

	st, err := c.Status(ctx, &kmsapi.StatusRequest{})
	if err != nil || st.Healthz != "ok" || st.Version != "v2" || st.KeyId != DefaultKeyID {
		t.Fatalf("Status: %v %v", st, err)
	}
	enc, err := c.Encrypt(ctx, &kmsapi.EncryptRequest{Plaintext: []byte("seed"), Uid: "u1"})
	if err != nil || enc.KeyId != DefaultKeyID || string(enc.Annotations["v.example.com"]) != "1" {
		t.Fatalf("Encrypt: %v %v", enc, err)
	}

	// After a rotation the old ciphertext still decrypts under its key id.
	p.SetKeyID("key-2")
	enc2, err := c.Encrypt(ctx, &kmsapi.EncryptRequest{Plaintext: []byte("seed2"), Uid: "u2"})
	if err != nil || enc2.KeyId != "key-2" {
		t.Fatalf("Encrypt after rotation: %v %v", enc2, err)
	}
	dec, err := c.Decrypt(ctx, &kmsapi.DecryptRequest{Ciphertext: enc.Ciphertext, KeyId: enc.KeyId, Annotations: enc.Annotations, Uid: "u3"})
	if err != nil || string(dec.Plaintext) != "seed" {
		t.Fatalf("Decrypt of the old key id: %v %v", dec, err)
	}

	for name, req := range map[string]*kmsapi.DecryptRequest{
		"other key id":       {Ciphertext: enc.Ciphertext, KeyId: "key-2", Annotations: enc.Annotations, Uid: "u"},
		"other annotations":  {Ciphertext: enc.Ciphertext, KeyId: enc.KeyId, Uid: "u"},
		"garbage":            {Ciphertext: []byte("garbage"), KeyId: enc.KeyId, Annotations: enc.Annotations, Uid: "u"},
		"no uid":             {Ciphertext: enc.Ciphertext, KeyId: enc.KeyId, Annotations: enc.Annotations},
		"ciphertext trimmed": {Ciphertext: enc.Ciphertext[1:], KeyId: enc.KeyId, Annotations: enc.Annotations, Uid: "u"},
	} {
		if _, err := c.Decrypt(ctx, req); status.Code(err) != codes.InvalidArgument {
			t.Errorf("Decrypt %s: %v, want InvalidArgument", name, err)
		}
	}
	if got := p.Calls(MethodDecrypt); got != 6 {
		t.Errorf("Decrypt calls = %d, want 6", got)
	}
	if got := p.Calls(MethodEncrypt); got != 2 {
		t.Errorf("Encrypt calls = %d, want 2", got)
	}
}

func TestPluginControls(t *testing.T) {
	p := New(Options{KeyID: "k0"})
	sock := SocketPath(t)
	Start(t, p, sock)
	c := dial(t, sock)
	ctx := ctxT(t)

	p.SetHealthz("sick")
	p.SetVersion("v1")
	st, _ := c.Status(ctx, &kmsapi.StatusRequest{})
	if st.Healthz != "sick" || st.Version != "v1" || st.KeyId != "k0" {
		t.Fatalf("Status: %v", st)
	}
	for _, m := range []string{MethodStatus, MethodEncrypt, MethodDecrypt} {
		p.SetFail(m, true)
	}
	if _, err := c.Status(ctx, &kmsapi.StatusRequest{}); status.Code(err) != codes.Internal {
		t.Errorf("Status: %v", err)
	}
	if _, err := c.Encrypt(ctx, &kmsapi.EncryptRequest{Plaintext: []byte("x"), Uid: "u"}); status.Code(err) != codes.Internal {
		t.Errorf("Encrypt: %v", err)
	}
	if _, err := c.Decrypt(ctx, &kmsapi.DecryptRequest{Ciphertext: []byte("x"), Uid: "u"}); status.Code(err) != codes.Internal {
		t.Errorf("Decrypt: %v", err)
	}
	p.SetFail(MethodStatus, false)

	// An hour's delay: only the caller's deadline can end the call.
	p.SetDelay(time.Hour)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := c.Status(short, &kmsapi.StatusRequest{}); status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("delayed Status: %v", err)
	}
	// The plugin's side of the call gives up with the caller too.
	expired, cancel := context.WithDeadline(ctx, time.Unix(0, 0))
	defer cancel()
	if err := wait(expired, time.Hour); status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("delay of a call whose caller gave up: %v", err)
	}
}

// TestPluginHold: a held call answers once released, or when its caller
// gives up; calls after the release are not held.
func TestPluginHold(t *testing.T) {
	p := New(Options{})
	sock := SocketPath(t)
	Start(t, p, sock)
	c := dial(t, sock)
	ctx := ctxT(t)

	release := p.Hold(MethodStatus)
	t.Cleanup(release)
	// held calls Status in the background; the result comes once the
	// plugin has counted the call n.
	held := func(ctx context.Context, n int) <-chan error {
		done := make(chan error, 1)
		go func() {
			_, err := c.Status(ctx, &kmsapi.StatusRequest{})
			done <- err
		}()
		for p.Calls(MethodStatus) < n {
			select {
			case err := <-done:
				t.Fatalf("held Status answered: %v", err)
			case <-time.After(time.Millisecond):
			}
		}
		return done
	}
	gaveUp, cancel := context.WithCancel(ctx)
	done := held(gaveUp, 1)
	cancel()
	if err := <-done; status.Code(err) != codes.Canceled {
		t.Errorf("held Status of a caller that gave up: %v", err)
	}
	done = held(ctx, 2)
	release()
	if err := <-done; err != nil {
		t.Errorf("held Status after the release: %v", err)
	}
	release()
	if _, err := c.Status(ctx, &kmsapi.StatusRequest{}); err != nil {
		t.Errorf("Status after the release: %v", err)
	}
	if _, err := c.Encrypt(ctx, &kmsapi.EncryptRequest{Plaintext: []byte("x"), Uid: "u"}); err != nil {
		t.Errorf("Encrypt is not held: %v", err)
	}
}

func TestControlFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "control.json")
	p := New(Options{KeyID: "k0", ControlFile: path})
	sock := SocketPath(t)
	Start(t, p, sock)
	c := dial(t, sock)
	ctx := ctxT(t)

	status1 := func() *kmsapi.StatusResponse {
		t.Helper()
		st, err := c.Status(ctx, &kmsapi.StatusRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	if st := status1(); st.KeyId != "k0" {
		t.Fatalf("without a control file: %v", st)
	}
	if err := WriteControl(path, Control{KeyID: new("k1"), Healthz: new("degraded")}); err != nil {
		t.Fatal(err)
	}
	if st := status1(); st.KeyId != "k1" || st.Healthz != "degraded" || st.Version != "v2" {
		t.Fatalf("with a control file: %v", st)
	}
	if p.KeyID() != "k1" {
		t.Fatalf("KeyID() = %q", p.KeyID())
	}
	// The file overrides the setters for the fields it sets.
	p.SetKeyID("k9")
	p.SetHealthz("ok")
	if st := status1(); st.KeyId != "k1" || st.Healthz != "degraded" {
		t.Fatalf("file vs setters: %v", st)
	}

	if err := os.WriteFile(path, []byte(`{"failEncrypt": true, "delay": 10}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if st := status1(); st.KeyId != "k9" || st.Healthz != "ok" {
		t.Fatalf("file without keyID: %v", st)
	}
	if _, err := c.Encrypt(ctx, &kmsapi.EncryptRequest{Plaintext: []byte("x"), Uid: "u"}); status.Code(err) != codes.Internal {
		t.Fatalf("failEncrypt from the file: %v", err)
	}

	// A broken file keeps the last good one.
	if err := os.WriteFile(path, []byte(`{"keyID": `), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Encrypt(ctx, &kmsapi.EncryptRequest{Plaintext: []byte("x"), Uid: "u"}); status.Code(err) != codes.Internal {
		t.Fatalf("with a broken file: %v", err)
	}
	// No file: the setters alone.
	os.Remove(path)
	if _, err := c.Encrypt(ctx, &kmsapi.EncryptRequest{Plaintext: []byte("x"), Uid: "u"}); err != nil {
		t.Fatalf("without the file: %v", err)
	}
}

func TestDuration(t *testing.T) {
	tests := map[string]time.Duration{
		`"1.5s"`: 1500 * time.Millisecond,
		`250`:    250 * time.Millisecond,
		`0`:      0,
	}
	for in, want := range tests {
		var d Duration
		if err := json.Unmarshal([]byte(in), &d); err != nil || time.Duration(d) != want {
			t.Errorf("%s: %v %v, want %v", in, time.Duration(d), err, want)
		}
	}
	for _, bad := range []string{`"soon"`, `true`} {
		var d Duration
		if err := json.Unmarshal([]byte(bad), &d); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	b, _ := json.Marshal(Duration(2 * time.Second))
	if string(b) != `"2s"` {
		t.Errorf("marshal: %s", b)
	}
}

func TestServeReplacesStaleSocket(t *testing.T) {
	sock := SocketPath(t)
	// A crashed plugin leaves its socket file; a new one takes its place.
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	lis.(*net.UnixListener).SetUnlinkOnClose(false)
	lis.Close()
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("no stale socket: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- New(Options{}).Serve(ctx, "unix://"+sock) }()
	c := dial(t, sock)
	if _, err := c.Status(ctxT(t), &kmsapi.StatusRequest{}, grpc.WaitForReady(true)); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
}
