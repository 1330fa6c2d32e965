package configfile

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// recorder is an Apply that records what it saw and fails on request.
type recorder struct {
	mu      sync.Mutex
	applied []string
	seen    chan string
}

func (r *recorder) apply(_ context.Context, data []byte, hash string) error {
	r.mu.Lock()
	r.applied = append(r.applied, string(data))
	r.mu.Unlock()
	defer func() { r.seen <- string(data) }()
	switch {
	case strings.HasPrefix(string(data), "bad"):
		return errors.New("invalid")
	case strings.HasPrefix(string(data), "retry"):
		return ErrRetry
	}
	if hash != Hash(data) {
		return errors.New("wrong hash")
	}
	return nil
}

func TestWatcher(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	write := func(s string) {
		t.Helper()
		// Replace the file as editors do: write aside, rename over.
		tmp := filepath.Join(dir, ".tmp")
		if err := os.WriteFile(tmp, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	write("one")
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg, MetricsOptions{Controller: "test_config_controller", ReloadsHelp: "r", LastTimeHelp: "l", InfoHelp: "i", APIServerID: "me",
		Now: func() time.Time { return time.Unix(100, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	m.Loaded(Hash([]byte("one")))
	rec := &recorder{seen: make(chan string, 100)}
	// A short poll interval stands in for missed events.
	w := &Watcher{Path: path, Interval: 50 * time.Millisecond, Apply: rec.apply, Metrics: m, Logger: slog.New(slog.DiscardHandler), What: "test config"}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(ctx, Hash([]byte("one")))
	}()
	defer func() {
		cancel()
		<-done
	}()
	next := func(want string) {
		t.Helper()
		select {
		case got := <-rec.seen:
			if got != want {
				t.Fatalf("applied %q, want %q", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%q was never applied", want)
		}
	}
	write("two")
	next("two")
	write("bad content")
	next("bad content")
	write("retry me")
	next("retry me")
	next("retry me") // retried with unchanged content
	write("three")
	next("three")
	// Unchanged content is not applied again.
	time.Sleep(200 * time.Millisecond)
	rec.mu.Lock()
	if last := rec.applied[len(rec.applied)-1]; last != "three" {
		t.Fatalf("applied %q after the last change", last)
	}
	rec.mu.Unlock()

	if got := testutil.ToFloat64(m.reloads.WithLabelValues("success", Hash([]byte("me")))); got != 2 {
		t.Errorf("successes = %v, want 2", got)
	}
	if got := testutil.ToFloat64(m.reloads.WithLabelValues("failure", Hash([]byte("me")))); got < 3 {
		t.Errorf("failures = %v, want at least 3", got)
	}
	want := `# HELP apiserver_test_config_controller_last_config_info i
# TYPE apiserver_test_config_controller_last_config_info gauge
apiserver_test_config_controller_last_config_info{apiserver_id_hash="` + Hash([]byte("me")) + `",hash="` + Hash([]byte("three")) + `"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "apiserver_test_config_controller_last_config_info"); err != nil {
		t.Error(err)
	}
}

func TestHash(t *testing.T) {
	if Hash(nil) != "" {
		t.Error("hash of nothing is not empty")
	}
	if h := Hash([]byte("x")); h != "sha256:2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881" {
		t.Errorf("Hash(x) = %s", h)
	}
}
