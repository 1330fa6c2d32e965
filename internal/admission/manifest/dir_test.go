package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateConfigField(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		path string
		gate bool
		is   error
		want string
	}{
		{"empty", "", false, nil, ""},
		{"ok", dir, true, nil, ""},
		{"gate off", dir, false, ErrFeatureGateDisabled, "staticManifestsDir: Forbidden: staticManifestsDir requires the ManifestBasedAdmissionControlConfig feature gate to be enabled"},
		{"relative", "etc/admission", true, ErrDirectory, `staticManifestsDir: Invalid value: "etc/admission": must be an absolute file path`},
		{"missing", dir + "/missing", true, ErrDirectory, "unable to read: stat "},
		{"glob", dir + "/*", true, ErrDirectory, "unable to read: stat "},
		{"file", file, true, ErrDirectory, `staticManifestsDir: Invalid value: "` + file + `": must be a directory`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateConfigField(tt.path, tt.gate)
			if tt.is == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, tt.is) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v", err)
			}
		})
	}
}
