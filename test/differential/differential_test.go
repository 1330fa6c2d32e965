package differential

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

var record = flag.Bool("record", false,
	"run every suite against the reference (hack/reference/build.sh) and rewrite its golden, then compare portcullis with it")

var actual = flag.String("actual", "",
	"also write what portcullis answered to this directory, in the goldens' format, to compare them side by side")

func TestMain(m *testing.M) { harness.Main(m) }

// Golden is the reference's answers for one suite.
type Golden struct {
	StartFails bool `json:"startFails,omitempty"`
	// Cases are in the suite's order, setup first.
	Cases []GoldenCase `json:"cases,omitempty"`
}

type GoldenCase struct {
	Name  string `json:"name"`
	Steps Result `json:"steps"`
}

func goldenPath(s *Suite) string { return filepath.Join("testdata", s.Name+".json") }

// TestDifferential runs every scenario against portcullis and compares what
// clients saw with what kube-apiserver answered (the goldens); with
// -record it first asks kube-apiserver itself.
func TestDifferential(t *testing.T) {
	// Built once before any suite, so that no suite's start-up time includes it.
	harness.BuildPortcullis(t)
	paths, err := filepath.Glob(filepath.Join("scenarios", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		// A file that does not load fails its own subtest only, so one
		// suite being written does not stop the others from running.
		s, err := loadSuite(p)
		t.Run(strings.TrimSuffix(filepath.Base(p), ".yaml"), func(t *testing.T) {
			if err != nil {
				t.Fatal(err)
			}
			t.Parallel()
			if *record {
				g := runSuite(t, s, startReference)
				writeGolden(t, s, g)
			}
			want := readGolden(t, s)
			got := runSuite(t, s, startPortcullis)
			if *actual != "" {
				writeJSON(t, filepath.Join(*actual, s.Name+".json"), got)
			}
			compare(t, s, want, got)
		})
	}
}

// runSuite starts one server for the suite and runs its cases in order.
func runSuite(t *testing.T, s *Suite, start func(*testing.T, *env) (*target, error)) *Golden {
	t.Helper()
	e := newEnv(t, s)
	began := time.Now()
	tg, err := start(t, e)
	started := time.Since(began)
	if s.StartFails {
		if err != nil && !errors.Is(err, errStartFailed) {
			t.Fatal(err)
		}
		if err != nil {
			// Why it refused (go test -v shows it), to check that a
			// suite fails for the reason it means.
			t.Logf("%s refused to start:\n%s", filepath.Base(tg.log), tail(tg.log))
		}
		return &Golden{StartFails: err != nil}
	}
	if err != nil {
		t.Fatalf("%v:\n%s", err, tail(tg.log))
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log %s (end):\n%s", tg.log, tail(tg.log))
		}
	})
	r := newRunner(t, e, tg)
	r.prepare(e.suite)
	g := &Golden{}
	if len(e.suite.Setup) > 0 {
		g.Cases = append(g.Cases, GoldenCase{Name: "setup", Steps: r.run("setup", e.suite.Setup)})
	}
	for _, c := range e.suite.Cases {
		g.Cases = append(g.Cases, GoldenCase{Name: c.Name, Steps: r.run(c.Name, c.Steps)})
	}
	// For docs/performance.md (go test -v): how long the server took to be
	// ready and to answer the cases.
	t.Logf("timing %s: ready in %s, %d cases in %s", filepath.Base(tg.log), started.Round(time.Millisecond),
		len(e.suite.Cases), (time.Since(began) - started).Round(time.Millisecond))
	return g
}

func writeGolden(t *testing.T, s *Suite, g *Golden) {
	t.Helper()
	writeJSON(t, goldenPath(s), g)
}

func writeJSON(t *testing.T, path string, g *Golden) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(g); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readGolden(t *testing.T, s *Suite) *Golden {
	t.Helper()
	b, err := os.ReadFile(goldenPath(s))
	if err != nil {
		t.Fatalf("no golden for %s (record it: go test ./test/differential -record -run 'TestDifferential/%s$'): %v", s.Name, s.Name, err)
	}
	var g Golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatalf("%s: %v", goldenPath(s), err)
	}
	return &g
}

// compare reports every case whose results differ from the golden, and
// every case marked known that no longer differs.
func compare(t *testing.T, s *Suite, want, got *Golden) {
	t.Helper()
	if s.StartFails {
		if want.StartFails != got.StartFails {
			t.Errorf("kube-apiserver startFails=%v, portcullis startFails=%v", want.StartFails, got.StartFails)
		}
		return
	}
	wantCases := map[string]Result{}
	for _, c := range want.Cases {
		wantCases[c.Name] = c.Steps
	}
	known := map[string]string{}
	for _, c := range s.Cases {
		known[c.Name] = c.Known
	}
	for _, c := range got.Cases {
		w, ok := wantCases[c.Name]
		if !ok {
			t.Errorf("%s: not in the golden; record it", c.Name)
			continue
		}
		diff := cmp.Diff(w, c.Steps, cmp.Transformer("ageColumns", ageColumns))
		switch {
		case diff != "" && known[c.Name] == "":
			t.Errorf("%s: portcullis differs from kube-apiserver (-kube-apiserver +portcullis):\n%s", c.Name, diff)
		case diff == "" && known[c.Name] != "":
			t.Errorf("%s: marked as a known difference (%s) but identical now: remove the mark", c.Name, known[c.Name])
		case diff != "":
			t.Logf("%s: known difference: %s", c.Name, known[c.Name])
		}
	}
}
