package manifest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/portcullis/portcullis/internal/configfile"
)

// writeAtomic is the documented way to change a manifest: write a temporary
// file (ignored for its extension) and rename it into place.
func writeAtomic(t *testing.T, dir, name, content string) {
	t.Helper()
	tmp := filepath.Join(dir, "."+name+".tmp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
}

type recorder struct {
	mu    sync.Mutex
	calls [][2]*Set
	// fail makes the next onChange fail, as an engine that cannot be built.
	fail error
}

func (r *recorder) onChange(prev, next *Set) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, [2]*Set{prev, next})
	err := r.fail
	r.fail = nil
	return err
}

func (r *recorder) n() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

const metricPrefix = "apiserver_manifest_admission_config_controller_"

func reloads(t *testing.T, reg *prometheus.Registry, status string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != metricPrefix+"automatic_reloads_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "status" && l.GetValue() == status {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

func TestWatcherCheck(t *testing.T) {
	dir := writeDir(t, map[string]string{"a.yaml": sprintf(vap, "p.static.k8s.io")})
	reg := prometheus.NewRegistry()
	var rec recorder
	w, err := NewWatcher(dir, ValidatingAdmissionPolicy, nil, rec.onChange, reg, nil, WithServerID("server-1"))
	if err != nil {
		t.Fatal(err)
	}
	first := w.Current()
	if rec.n() != 1 || rec.calls[0][0] != nil || rec.calls[0][1] != first {
		t.Fatalf("initial onChange: %v", rec.calls)
	}
	if reloads(t, reg, "success") != 1 {
		t.Fatal("initial load not counted as a success")
	}

	t.Run("unchanged hash is a no-op", func(t *testing.T) {
		if w.Check() || rec.n() != 1 || w.Current() != first {
			t.Fatal("unchanged directory reloaded")
		}
	})
	t.Run("invalid change keeps the last good set", func(t *testing.T) {
		writeAtomic(t, dir, "b.yaml", sprintf(vap, "no-suffix"))
		if w.Check() || w.Current() != first || rec.n() != 1 {
			t.Fatal("invalid configuration applied")
		}
		if reloads(t, reg, "failure") != 1 {
			t.Fatal("failure not counted")
		}
		// kube-apiserver tries a directory that does not load at every
		// check and counts each failure.
		if w.Check() || reloads(t, reg, "failure") != 2 {
			t.Fatal("the same broken content was not counted again")
		}
	})
	t.Run("an engine that cannot be built keeps the last good set", func(t *testing.T) {
		rec.mu.Lock()
		rec.fail = errors.New("cannot build")
		rec.mu.Unlock()
		writeAtomic(t, dir, "b.yaml", sprintf(vap, "r.static.k8s.io"))
		if w.Check() || w.Current() != first || rec.n() != 2 {
			t.Fatalf("failed onChange applied the set (calls %d)", rec.n())
		}
		if got := reloads(t, reg, "failure"); got != 3 {
			t.Fatalf("failed build counted %v failures, want 3", got)
		}
		if reloads(t, reg, "success") != 1 {
			t.Fatal("failed build counted as a success")
		}
		want := `
# HELP apiserver_manifest_admission_config_controller_last_config_info Information about the last applied admission manifest configuration with hash as label, split by plugin and apiserver identity.
# TYPE apiserver_manifest_admission_config_controller_last_config_info gauge
apiserver_manifest_admission_config_controller_last_config_info{apiserver_id_hash="` + configfile.Hash([]byte("server-1")) + `",hash="` + first.Hash + `",plugin="ValidatingAdmissionPolicy"} 1
`
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want), metricPrefix+"last_config_info"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("valid change swaps and calls onChange", func(t *testing.T) {
		writeAtomic(t, dir, "b.yaml", sprintf(vap, "q.static.k8s.io"))
		if !w.Check() {
			t.Fatal("valid change not applied")
		}
		next := w.Current()
		if len(next.Objects) != 2 || next.Hash == first.Hash {
			t.Fatalf("new set %v", keys(next))
		}
		if rec.n() != 3 || rec.calls[2][0] != first || rec.calls[2][1] != next {
			t.Fatal("onChange not called with (prev, next)")
		}
		want := `
# HELP apiserver_manifest_admission_config_controller_last_config_info Information about the last applied admission manifest configuration with hash as label, split by plugin and apiserver identity.
# TYPE apiserver_manifest_admission_config_controller_last_config_info gauge
apiserver_manifest_admission_config_controller_last_config_info{apiserver_id_hash="` + configfile.Hash([]byte("server-1")) + `",hash="` + next.Hash + `",plugin="ValidatingAdmissionPolicy"} 1
`
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want), metricPrefix+"last_config_info"); err != nil {
			t.Fatal(err)
		}
	})
}

func TestWatcherStartupFails(t *testing.T) {
	dir := writeDir(t, map[string]string{"a.yaml": sprintf(vap, "p.static.k8s.io"), "b.yaml": sprintf(vap, "p.static.k8s.io")})
	if _, err := NewWatcher(dir, ValidatingAdmissionPolicy, nil, nil, nil, nil); !errors.Is(err, ErrDuplicateName) {
		t.Fatalf("got %v", err)
	}
}

func TestWatchersShareRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	for _, k := range []Kind{ValidatingAdmissionPolicy, MutatingAdmissionPolicy, ValidatingAdmissionWebhook, MutatingAdmissionWebhook} {
		if _, err := NewWatcher(t.TempDir(), k, nil, nil, reg, nil); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
	}
	if got := reloads(t, reg, "success"); got != 1 {
		// One series per plugin; reloads reports the first it finds.
		t.Fatalf("success count %v", got)
	}
}

func TestWatcherRunPicksUpRename(t *testing.T) {
	dir := writeDir(t, map[string]string{"a.yaml": sprintf(vap, "p.static.k8s.io")})
	changed := make(chan *Set, 4)
	w, err := NewWatcher(dir, ValidatingAdmissionPolicy, nil, func(_, next *Set) error { changed <- next; return nil }, nil, nil, WithPollInterval(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	<-changed // initial
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	// Run may not have added its fsnotify watch yet; keep renaming new
	// content until an event is seen.
	deadline := time.After(5 * time.Second)
	for i := 0; ; i++ {
		writeAtomic(t, dir, "b.yaml", sprintf(vap, "q.static.k8s.io")+strings.Repeat("#\n", i))
		select {
		case s := <-changed:
			if len(s.Objects) != 2 {
				t.Fatalf("got %v", keys(s))
			}
			return
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatal("rename not picked up by fsnotify")
		}
	}
}

func TestWatcherRunPolls(t *testing.T) {
	dir := writeDir(t, nil)
	changed := make(chan *Set, 4)
	w, err := NewWatcher(dir, MutatingAdmissionWebhook, nil, func(_, next *Set) error { changed <- next; return nil }, nil, nil, WithPollInterval(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	<-changed
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	writeAtomic(t, dir, "a.yaml", strings.Replace(sprintf(vwh, "m.static.k8s.io", "url: https://127.0.0.1:1/m"), "Validating", "Mutating", 1))
	select {
	case s := <-changed:
		if len(s.Objects) != 1 {
			t.Fatalf("got %v", keys(s))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("change not picked up")
	}
}
