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

var portcullis struct {
	once sync.Once
	dir  string // temporary directory removed by Main
	path string
	err  error
}

// Main runs the tests of a package that uses the harness and then removes the
// binaries built for this run. Call it from TestMain:
//
//	func TestMain(m *testing.M) { harness.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	if portcullis.dir != "" {
		_ = os.RemoveAll(portcullis.dir)
	}
	os.Exit(code)
}

// BuildPortcullis returns the path of a portcullis binary built from this
// checkout, building it on first use in this process. PORTCULLIS_BINARY, when
// set, names a prebuilt binary to use instead.
func BuildPortcullis(t testing.TB) string {
	t.Helper()
	portcullis.once.Do(func() {
		if bin := os.Getenv("PORTCULLIS_BINARY"); bin != "" {
			portcullis.path, portcullis.err = filepath.Abs(bin)
			return
		}
		portcullis.dir, portcullis.err = os.MkdirTemp("", "portcullis-e2e-")
		if portcullis.err != nil {
			return
		}
		portcullis.path = filepath.Join(portcullis.dir, "portcullis")
		portcullis.err = goBuild(portcullis.path, "./cmd/portcullis")
	})
	if portcullis.err != nil {
		t.Fatalf("building portcullis: %v", portcullis.err)
	}
	return portcullis.path
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
