package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	kmsapi "k8s.io/kms/apis/v2"

	"github.com/portcullis/portcullis/internal/encryption/kmsv2/kmstest"
)

// The test binary doubles as the plugin binary, so that TestProcess runs
// a real process without a separate build.
func TestMain(m *testing.M) {
	if os.Getenv("KMSPLUGIN_RUN_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// syncBuffer is stderr shared with a running plugin.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func status(t *testing.T, socket string) *kmsapi.StatusResponse {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := kmsapi.NewKeyManagementServiceClient(conn).Status(ctx, &kmsapi.StatusRequest{}, grpc.WaitForReady(true))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestRun(t *testing.T) {
	sock := kmstest.SocketPath(t)
	control := filepath.Join(t.TempDir(), "control.json")
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--listen", "unix://" + sock, "--control-file", control, "--key-id", "first"}, &stderr)
	}()

	if st := status(t, sock); st.KeyId != "first" || st.Healthz != "ok" {
		t.Fatalf("Status: %v", st)
	}
	if err := kmstest.WriteControl(control, kmstest.Control{KeyID: new("second"), Healthz: new("broken")}); err != nil {
		t.Fatal(err)
	}
	if st := status(t, sock); st.KeyId != "second" || st.Healthz != "broken" {
		t.Fatalf("Status after the control file changed: %v", st)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	if !strings.Contains(stderr.String(), "kmstest: serving") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

func TestRunFlags(t *testing.T) {
	tests := map[string][]string{
		"no listen":  {},
		"extra args": {"--listen", "/tmp/x.sock", "extra"},
		"bad flag":   {"--nope"},
	}
	for name, args := range tests {
		t.Run(name, func(t *testing.T) {
			var stderr bytes.Buffer
			if err := run(context.Background(), args, &stderr); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

// TestProcess runs the plugin as a process and stops it as e2e tests do.
func TestProcess(t *testing.T) {
	sock := kmstest.SocketPath(t)
	cmd := exec.Command(os.Args[0], "--listen", sock, "--key-id", "proc")
	cmd.Env = append(os.Environ(), "KMSPLUGIN_RUN_MAIN=1")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	if st := status(t, sock); st.KeyId != "proc" {
		t.Fatalf("Status: %v", st)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { errc <- cmd.Wait() }()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit within 10s of SIGTERM")
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
}
