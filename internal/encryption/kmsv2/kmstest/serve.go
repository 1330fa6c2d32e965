package kmstest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	kmsapi "k8s.io/kms/apis/v2"
)

// gracePeriod is how long a stopping server lets calls finish.
const gracePeriod = 2 * time.Second

// Serve listens on socketPath (a path, "unix:///path", or "@name" for an
// abstract socket) and serves until ctx ends. A socket file left by an
// earlier run is replaced.
func (p *Plugin) Serve(ctx context.Context, socketPath string) error {
	lis, err := Listen(socketPath)
	if err != nil {
		return err
	}
	return p.ServeListener(ctx, lis)
}

// Listen opens the plugin's socket, replacing a stale socket file.
func Listen(socketPath string) (net.Listener, error) {
	path := strings.TrimPrefix(socketPath, "unix://")
	if path == "" {
		return nil, errors.New("kmstest: empty socket path")
	}
	if !strings.HasPrefix(path, "@") {
		if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == fs.ModeSocket {
			_ = os.Remove(path)
		}
	}
	lis, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("kmstest: %w", err)
	}
	return lis, nil
}

// ServeListener serves on lis until ctx ends, then stops, letting calls in
// flight finish for a short while. It closes lis.
func (p *Plugin) ServeListener(ctx context.Context, lis net.Listener) error {
	srv := grpc.NewServer()
	kmsapi.RegisterKeyManagementServiceServer(srv, server{p: p})
	p.log.Info("kmstest: serving", "address", lis.Addr().String())

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(lis) }()
	select {
	case err := <-errc:
		return fmt.Errorf("kmstest: %w", err)
	case <-ctx.Done():
	}
	stopped := make(chan struct{})
	go func() {
		srv.GracefulStop()
		close(stopped)
	}()
	select {
	case <-stopped:
	case <-time.After(gracePeriod):
		srv.Stop()
		<-stopped
	}
	<-errc
	p.log.Info("kmstest: stopped", "address", lis.Addr().String())
	return nil
}

// SocketPath is a fresh socket path for a test, short enough for the
// ~107 bytes a unix socket path may have (t.TempDir often is not), and
// removed when the test ends.
func SocketPath(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "kms")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "p.sock")
}

// Endpoint is the provider endpoint of a socket path.
func Endpoint(socketPath string) string { return "unix://" + socketPath }

// Start serves p on socketPath until stop is called or the test ends. The
// socket is listening when Start returns; stop returns once it is gone.
func Start(t testing.TB, p *Plugin, socketPath string) (stop func()) {
	t.Helper()
	lis, err := Listen(socketPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := p.ServeListener(ctx, lis); err != nil {
			t.Errorf("kmstest: %v", err)
		}
	}()
	stop = func() {
		cancel()
		<-done
	}
	t.Cleanup(stop)
	return stop
}
