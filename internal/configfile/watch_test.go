package configfile

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
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

// replace replaces the file as editors do: write aside, rename over.
func replace(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// start runs w, from the content from, until the test ends.
func start(t *testing.T, w *Watcher, from string) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(ctx, Hash([]byte(from)))
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

func TestWatcher(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	write := func(s string) { t.Helper(); replace(t, path, s) }
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
	start(t, w, "one")
	// next waits for want to be applied; content being retried may be
	// applied again meanwhile, as often as events and polls come.
	next := func(want string, retrying ...string) {
		t.Helper()
		for {
			select {
			case got := <-rec.seen:
				if got == want {
					return
				}
				if !slices.Contains(retrying, got) {
					t.Fatalf("applied %q, want %q", got, want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%q was never applied", want)
			}
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
	next("three", "retry me")
	// Unchanged content is not applied again: not by a look at the file,
	// nor by Run, which sees it rewritten (and polls it) before the next
	// change; next fails on anything applied before "four".
	if hash, err := w.Check(context.Background(), Hash([]byte("three"))); hash != Hash([]byte("three")) || err != nil {
		t.Fatalf("Check of unchanged content: %s, %v", hash, err)
	}
	write("three")
	write("four")
	next("four")

	// The watcher records the verdict once Apply has returned: wait for
	// the last one.
	successes := func() float64 { return testutil.ToFloat64(m.reloads.WithLabelValues("success", Hash([]byte("me")))) }
	for deadline := time.Now().Add(5 * time.Second); successes() < 3 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if got := successes(); got != 3 {
		t.Errorf("successes = %v, want 3", got)
	}
	if got := testutil.ToFloat64(m.reloads.WithLabelValues("failure", Hash([]byte("me")))); got < 3 {
		t.Errorf("failures = %v, want at least 3", got)
	}
	want := `# HELP apiserver_test_config_controller_last_config_info i
# TYPE apiserver_test_config_controller_last_config_info gauge
apiserver_test_config_controller_last_config_info{apiserver_id_hash="` + Hash([]byte("me")) + `",hash="` + Hash([]byte("four")) + `"} 1
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

// TestCheck drives the watcher one look at a time, as components that
// run their own schedule do.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	m, err := NewMetrics(nil, MetricsOptions{Controller: "test_config_controller"})
	if err != nil {
		t.Fatal(err)
	}
	w := &Watcher{Path: path, Metrics: m, What: "test config", Logger: slog.New(slog.DiscardHandler),
		Apply: func(_ context.Context, data []byte, _ string) error {
			switch s := string(data); {
			case strings.HasPrefix(s, "bad"):
				return errInvalid
			case strings.HasPrefix(s, "retry"):
				return ErrRetry
			case strings.HasPrefix(s, "# comment"):
				return ErrUnchanged
			}
			return nil
		}}
	steps := []struct {
		name    string
		content string // "": remove the file
		wantErr error  // nil: none
		tracked string // the content tracked afterwards
		success float64
		failure float64
	}{
		{"unchanged content does nothing", "one", nil, "one", 0, 0},
		{"new content is applied", "two", nil, "two", 1, 0},
		{"an invalid file is tracked, not retried", "bad", errInvalid, "bad", 1, 1},
		{"a retry leaves the tracked content", "retry", ErrRetry, "bad", 1, 2},
		{"a missing file is a failure", "", os.ErrNotExist, "bad", 1, 3},
		{"the same configuration is tracked, not counted", "# comment", nil, "# comment", 1, 3},
	}
	tracked := Hash([]byte("one"))
	for _, s := range steps {
		if s.content == "" {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(path, []byte(s.content), 0o600); err != nil {
			t.Fatal(err)
		}
		var err error
		tracked, err = w.Check(context.Background(), tracked)
		if s.wantErr == nil && err != nil || s.wantErr != nil && !errors.Is(err, s.wantErr) {
			t.Errorf("%s: err = %v, want %v", s.name, err, s.wantErr)
		}
		if tracked != Hash([]byte(s.tracked)) {
			t.Errorf("%s: tracking %s, want the hash of %q", s.name, tracked, s.tracked)
		}
		if n, _ := m.Reloads("success"); n != s.success {
			t.Errorf("%s: %v successes, want %v", s.name, n, s.success)
		}
		if n, _ := m.Reloads("failure"); n != s.failure {
			t.Errorf("%s: %v failures, want %v", s.name, n, s.failure)
		}
	}
}

// errInvalid is content Apply refuses for good.
var errInvalid = errors.New("invalid")

// TestWatching: once the hook has run, a change is seen from the file
// events alone (the poll is an hour away).
func TestWatching(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	watching := make(chan struct{})
	rec := &recorder{seen: make(chan string, 100)}
	w := &Watcher{Path: path, Interval: time.Hour, Apply: rec.apply, What: "test config",
		Logger: slog.New(slog.DiscardHandler), Watching: func() { close(watching) }}
	start(t, w, "one")
	<-watching
	replace(t, path, "two")
	select {
	case got := <-rec.seen:
		if got != "two" {
			t.Fatalf("applied %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the change was not seen")
	}
}
