package harness

import (
	"bytes"
	"context"
	"encoding/json"

	"os"
	"os/exec"
	"testing"
	"time"
)

// ModuleDir returns the directory of module at version in the Go module
// cache, downloading it through the module proxy on first use. Tests use
// it for files that other projects ship in their modules (such as
// gateway-api's CustomResourceDefinitions), which this module does not
// import.
func ModuleDir(t testing.TB, module, version string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", module+"@"+version)
	// Outside this module, so that its go.mod and go.sum stay as they are.
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); jerr != nil && err == nil {
		err = jerr
	}
	if err != nil || info.Error != "" || info.Dir == "" {
		t.Fatalf("go mod download %s@%s: %v %s\n%s", module, version, err, info.Error, stderr.Bytes())
	}
	return info.Dir
}
