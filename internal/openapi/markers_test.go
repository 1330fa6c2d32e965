package openapi

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestMarkersUpToDate regenerates zz_generated.markers.go from the module
// sources go.mod selects: it fails after a k8s.io/api bump until
// `go generate ./internal/openapi` has been run.
func TestMarkersUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go run")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool")
	}
	out := filepath.Join(t.TempDir(), "markers.go")
	cmd := exec.Command(goTool, "run", "gen_markers.go", "-out", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gen_markers: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("zz_generated.markers.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Error("zz_generated.markers.go is stale: run go generate ./internal/openapi")
	}
}
