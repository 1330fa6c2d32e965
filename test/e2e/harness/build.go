package harness

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// buildTimeout bounds one `go build`; a cold kubectl build on two cores takes
// a few minutes.
const buildTimeout = 15 * time.Minute

// binary is one program built once per test process into dir.
type binary struct {
	pkg  string // the package to build, from the module root
	env  string // names a prebuilt binary to use instead
	once sync.Once
	path string
	err  error
}

var (
	// buildDir holds the binaries built for this run; Main removes it.
	buildDir struct {
		once sync.Once
		path string
		err  error
	}
	portcullis = &binary{pkg: "./cmd/portcullis", env: "PORTCULLIS_BINARY"}
	kmsPlugin  = &binary{pkg: "./test/kmsplugin", env: "PORTCULLIS_KMSPLUGIN_BINARY"}
)

// Main runs the tests of a package that uses the harness and then removes the
// binaries built for this run. Call it from TestMain:
//
//	func TestMain(m *testing.M) { harness.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	if buildDir.path != "" {
		_ = os.RemoveAll(buildDir.path)
	}
	os.Exit(code)
}

// BuildPortcullis returns the path of a portcullis binary built from this
// checkout, building it on first use in this process. PORTCULLIS_BINARY, when
// set, names a prebuilt binary to use instead.
func BuildPortcullis(t testing.TB) string {
	t.Helper()
	return portcullis.get(t)
}

// BuildKMSPlugin returns the path of the test KMS v2 plugin
// (test/kmsplugin), built on first use like BuildPortcullis;
// PORTCULLIS_KMSPLUGIN_BINARY names a prebuilt one.
func BuildKMSPlugin(t testing.TB) string {
	t.Helper()
	return kmsPlugin.get(t)
}

func (b *binary) get(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		if bin := os.Getenv(b.env); bin != "" {
			b.path, b.err = filepath.Abs(bin)
			return
		}
		buildDir.once.Do(func() { buildDir.path, buildDir.err = os.MkdirTemp("", "portcullis-e2e-") })
		if b.err = buildDir.err; b.err != nil {
			return
		}
		b.path = filepath.Join(buildDir.path, filepath.Base(b.pkg))
		b.err = goBuild(b.path, b.pkg)
	})
	if b.err != nil {
		t.Fatalf("building %s: %v", b.pkg, b.err)
	}
	return b.path
}

// goBuild runs `go build -o out pkg` in the module root with extra flags.
func goBuild(out, pkg string, flags ...string) error {
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	args := append([]string{"build", "-o", out}, flags...)
	args = append(args, pkg)
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go %v: %w\n%s", args, err, output.Bytes())
	}
	return nil
}

// moduleRoot finds the directory holding go.mod, walking up from the working
// directory (go test runs each package in its own directory).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory: %w", os.ErrNotExist)
		}
		dir = parent
	}
}
