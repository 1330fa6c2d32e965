package main

import (
	"context"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// TestSmokePortcullis runs one workload, the one with the most
// preparation (policies that must be seen to deny), against portcullis
// alone with a 1 s window, so that CI covers the tool without the
// reference. Nothing here compares a measured figure.
func TestSmokePortcullis(t *testing.T) {
	if testing.Short() {
		t.Skip("starts portcullis")
	}
	wls, err := selectWorkloads("pods-10")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	creds, err := makeCreds(dir + "/pki")
	if err != nil {
		t.Fatal(err)
	}
	var progress io.Writer = io.Discard
	if testing.Verbose() {
		progress = os.Stderr
	}
	cfg := config{
		workloads: wls, reps: 1, duration: time.Second, warmup: 200 * time.Millisecond,
		servers:        servers{creds: creds, portcullisBin: harness.BuildPortcullis(t), port: freePort(t)},
		onlyPortcullis: true, workDir: dir, progress: progress,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	runs, err := run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	r := runs[0]
	if r.Workload != "pods-10" || r.Server != portcullis || r.Ops == 0 || r.Errors != 0 || r.FirstError != "" {
		t.Fatalf("run = %+v, want pods-10 on portcullis with requests and no errors", r)
	}
	if r.CPUms <= 0 || r.RSSMiB <= 0 || r.StartMs <= 0 {
		t.Errorf("run = %+v, want CPU time, RSS and start-up read", r)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
