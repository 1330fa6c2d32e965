package harness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// kubectlMaxAge is how long an unused cached kubectl (of an older go.sum) is
// kept before a later build removes it; each is about 100 MB.
const kubectlMaxAge = 14 * 24 * time.Hour

var kubectlBin struct {
	once sync.Once
	path string
	err  error
}

// KubectlPath returns the path of a kubectl built from the k8s.io/kubectl
// module in go.mod (./test/kubectl), building and caching it on first use.
func KubectlPath(t testing.TB) string {
	t.Helper()
	kubectlBin.once.Do(func() {
		start := time.Now()
		var built bool
		kubectlBin.path, built, kubectlBin.err = cachedKubectl()
		if built {
			// Reported so that slow first runs explain themselves.
			fmt.Fprintf(os.Stderr, "harness: built kubectl in %s: %s\n", time.Since(start).Round(time.Second), kubectlBin.path)
		}
	})
	if kubectlBin.err != nil {
		t.Fatalf("building kubectl: %v", kubectlBin.err)
	}
	return kubectlBin.path
}

// cachedKubectl returns the cached kubectl for this go.sum, building it when
// missing. It reports whether it built the binary.
func cachedKubectl() (path string, built bool, err error) {
	root, err := moduleRoot()
	if err != nil {
		return "", false, err
	}
	version, err := moduleVersion(root, "k8s.io/kubectl")
	if err != nil {
		return "", false, err
	}
	ldflags := kubectlLDFlags(version)
	key, err := kubectlCacheKey(root, ldflags)
	if err != nil {
		return "", false, err
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", false, fmt.Errorf("locating the user cache directory: %w", err)
	}
	dir := filepath.Join(cache, "portcullis-test")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, fmt.Errorf("creating the kubectl cache: %w", err)
	}
	path = filepath.Join(dir, "kubectl-"+key)
	if isFile(path) {
		now := time.Now()
		_ = os.Chtimes(path, now, now) // keeps it from being pruned
		return path, false, nil
	}

	// Test packages run in parallel; one builds, the others wait and reuse.
	unlock, err := lockFile(path + ".lock")
	if err != nil {
		return "", false, err
	}
	defer unlock()
	if isFile(path) {
		return path, false, nil
	}
	tmp, err := os.CreateTemp(dir, "kubectl-"+key+".tmp-*")
	if err != nil {
		return "", false, fmt.Errorf("creating the kubectl build output: %w", err)
	}
	_ = tmp.Close()
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if err := goBuild(tmp.Name(), "./test/kubectl", "-ldflags", ldflags); err != nil {
		return "", false, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", false, fmt.Errorf("publishing the kubectl build: %w", err)
	}
	pruneKubectls(dir, path)
	return path, true, nil
}

// kubectlLDFlags stamps the Kubernetes release matching the module version
// (k8s.io/kubectl v0.X.Y is Kubernetes v1.X.Y) so kubectl reports and sends
// the version a released binary would, instead of v0.0.0-master.
func kubectlLDFlags(moduleVersion string) string {
	release := "v1" + strings.TrimPrefix(moduleVersion, "v0")
	minor := strings.SplitN(strings.TrimPrefix(moduleVersion, "v0."), ".", 2)[0]
	var flags []string
	for _, pkg := range []string{"k8s.io/client-go/pkg/version", "k8s.io/component-base/version"} {
		flags = append(flags,
			"-X", pkg+".gitVersion="+release,
			"-X", pkg+".gitMajor=1",
			"-X", pkg+".gitMinor="+minor,
			"-X", pkg+".gitTreeState=clean")
	}
	return "-s -w " + strings.Join(flags, " ")
}

// kubectlCacheKey identifies a kubectl build: the dependency versions
// (go.sum), its main package, the toolchain, the platform and the flags.
func kubectlCacheKey(root, ldflags string) (string, error) {
	h := sha256.New()
	for _, name := range []string{"go.sum", filepath.Join("test", "kubectl", "main.go")} {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			return "", fmt.Errorf("hashing kubectl inputs: %w", err)
		}
		fmt.Fprintf(h, "%s %d\n", name, len(data))
		h.Write(data)
	}
	fmt.Fprintf(h, "%s %s/%s %s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, ldflags)
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// moduleVersion asks the go command which version of module the build uses.
func moduleVersion(root, module string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Version}}", module)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %w\n%s", module, err, stderr.Bytes())
	}
	version := strings.TrimSpace(string(out))
	if !strings.HasPrefix(version, "v0.") {
		return "", fmt.Errorf("unexpected %s version %q", module, version)
	}
	return version, nil
}

// pruneKubectls removes cached kubectls other than keep that were not used
// for kubectlMaxAge. Errors are ignored: pruning is an optimisation.
func pruneKubectls(dir, keep string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if path == keep || path == keep+".lock" || !strings.HasPrefix(e.Name(), "kubectl-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > kubectlMaxAge {
			_ = os.Remove(path)
		}
	}
}

func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}
