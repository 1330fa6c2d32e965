package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// findings returns "function:line" for each finding in src, a file of
// package p.
func findings(t *testing.T, src string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x_test.go", "package p\n"+src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fd := range check(fset, []*ast.File{f}) {
		out = append(out, fd.fn+":"+strconv.Itoa(fd.pos.Line-1))
	}
	return out
}

func TestCheck(t *testing.T) {
	for _, tt := range []struct {
		name string
		src  string // line 1 is the first line of src
		want []string
	}{
		{
			name: "time.Since compared",
			src: `import "time"
func TestA(t *testing.T) {
	start := time.Now()
	if time.Since(start) > time.Second {
		t.Fatal("slow")
	}
}`,
			want: []string{"TestA:4"},
		},
		{
			name: "variable assigned from time.Since, in an if",
			src: `import "time"
func TestA(t *testing.T) {
	start := time.Now()
	if d := time.Since(start); d > time.Second {
		t.Fatal("slow")
	}
}`,
			want: []string{"TestA:4"},
		},
		{
			name: "Sub of a clock reading, transitively",
			src: `import "time"
func TestA(t *testing.T) {
	start := time.Now()
	end := time.Now()
	took := end.Sub(start)
	perOp := took / 10
	if perOp.Milliseconds() >= 5 {
		t.Fatal("slow")
	}
}`,
			want: []string{"TestA:7"},
		},
		{
			name: "time.Until of a deadline",
			src: `import "time"
func TestA(t *testing.T) {
	deadline := time.Now().Add(time.Second)
	if left := time.Until(deadline); left < 0 {
		t.Fatal("late")
	}
	if deadline.Sub(time.Now()).Seconds() < 1 {
		t.Fatal("late")
	}
}`,
			want: []string{"TestA:4", "TestA:7"},
		},
		{
			name: "renamed time import",
			src: `import clock "time"
func TestA(t *testing.T) {
	start := clock.Now()
	if clock.Since(start) > clock.Second {
		t.Fatal("slow")
	}
}`,
			want: []string{"TestA:4"},
		},
		{
			name: "in a function literal of a test, and a slice of samples",
			src: `import "time"
func TestA(t *testing.T) {
	var lat []time.Duration
	t.Run("x", func(t *testing.T) {
		start := time.Now()
		lat = append(lat, time.Since(start))
	})
	for _, l := range lat {
		if l > time.Second {
			t.Fatal("slow")
		}
	}
}`,
			want: []string{"TestA:9"},
		},
		{
			name: "helper returning a measured duration",
			src: `import "time"
func timed(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
func TestA(t *testing.T) {
	perRequest := func() time.Duration { return timed(func() {}) }
	small, large := perRequest(), perRequest()
	if large > 2*small {
		t.Fatal("does not scale")
	}
}`,
			want: []string{"TestA:10"},
		},
		{
			name: "method of a test type",
			src: `import "time"
type env struct{ start time.Time }
func (e *env) check(t *testing.T) {
	if d := time.Since(e.start); d > time.Second {
		t.Fatal("slow")
	}
}`,
			want: []string{"*env.check:4"},
		},
		{
			name: "benchmarks and their helpers may compare",
			src: `import "time"
func BenchmarkA(b *testing.B) {
	start := time.Now()
	if time.Since(start) > time.Second {
		b.Log("slow")
	}
}
func measure(b *testing.B) {
	start := time.Now()
	if time.Since(start) > time.Second {
		b.Log("slow")
	}
}
func TestA(t *testing.T) {
	testing.Benchmark(func(b *testing.B) {
		start := time.Now()
		if time.Since(start) > time.Second {
			b.Log("slow")
		}
	})
}`,
		},
		{
			name: "a polling deadline is not a measured duration",
			src: `import "time"
func TestA(t *testing.T) {
	deadline := time.Now().Add(5 * time.Second)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatal("never done")
		}
		time.Sleep(10 * time.Millisecond)
	}
	ts := time.Now()
	if ts.Before(deadline) {
	}
}`,
		},
		{
			name: "logging a duration is fine",
			src: `import "time"
func TestA(t *testing.T) {
	start := time.Now()
	t.Logf("took %v", time.Since(start))
	if d := time.Since(start); d == 0 {
		t.Log("no time at all")
	}
}`,
		},
		{
			name: "configured durations and non-clock Sub",
			src: `import "time"
func TestA(t *testing.T) {
	timeout := 2 * time.Second
	if timeout > time.Second {
	}
	var a, b big.Int
	if a.Sub(&a, &b).Sign() > 0 {
	}
	exp := time.Unix(100, 0)
	if exp.Sub(time.Unix(0, 0)) > time.Minute {
	}
}`,
		},
		{
			name: "a shadowed name is another variable",
			src: `import "time"
func TestA(t *testing.T) {
	{
		d := time.Since(time.Now())
		t.Log(d)
	}
	d := 3 * time.Second
	if d > time.Second {
	}
}`,
		},
		{
			name: "file without package time",
			src: `func TestA(t *testing.T) {
	start := time.Now()
	if time.Since(start) > 1 {
	}
}`,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, findings(t, tt.src)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRun checks that run reads _test.go files and test-only packages,
// and no other files.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	bad := "import \"time\"\nfunc Slow(start time.Time) bool { return time.Since(start) > time.Second }\n"
	write := func(path, pkg string) {
		t.Helper()
		path = filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("package "+pkg+"\n"+bad), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/a.go", "a")
	write("a/a_test.go", "a")
	write("b/btest/b.go", "btest")
	write("a/testdata/c_test.go", "c")
	got, err := run([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range got {
		names = append(names, strings.TrimPrefix(filepath.ToSlash(f.pos.Filename), filepath.ToSlash(dir)+"/"))
	}
	if diff := cmp.Diff([]string{"a/a_test.go", "b/btest/b.go"}, names); diff != "" {
		t.Errorf("files with findings (-want +got):\n%s", diff)
	}
}
