package authnconfig

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestValidFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/valid/*")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c, err := Load(f, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if c.Path() != f || !strings.HasPrefix(c.Hash(), "sha256:") {
				t.Fatalf("path %q hash %q", c.Path(), c.Hash())
			}
		})
	}
}

// TestInvalidFiles compares the error for each invalid file with its
// golden (testdata/invalid/NAME.golden; go test -update rewrites them).
func TestInvalidFiles(t *testing.T) {
	files, _ := filepath.Glob("testdata/invalid/*")
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Parse(data, LoadOptions{})
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrDecode) && !errors.Is(err, ErrInvalid) {
				t.Fatalf("error matches no sentinel: %v", err)
			}
			got := strings.ReplaceAll(err.Error(), ", jwt[", ",\n  jwt[") + "\n"
			golden := strings.TrimSuffix(f, filepath.Ext(f)) + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if strings.Contains(got, "hunter2") || strings.Contains(got, "bm90IGEgY2VydA") {
				t.Error("the error echoes file content it should not")
			}
		})
	}
}

func TestTooManyAuthenticators(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: apiserver.config.k8s.io/v1\nkind: AuthenticationConfiguration\njwt:\n")
	for i := range 65 {
		fmt.Fprintf(&b, "- issuer: {url: https://i%d.example.com, audiences: [a]}\n  claimMappings: {username: {claim: sub, prefix: \"\"}}\n", i)
	}
	_, err := Parse([]byte(b.String()), LoadOptions{})
	if err == nil || err.Error() != "invalid authentication configuration: jwt: Too many: 65: must have at most 64 items" {
		t.Fatal(err)
	}
}

func TestDisallowedIssuers(t *testing.T) {
	data, err := os.ReadFile("testdata/valid/v1beta1.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse(data, LoadOptions{DisallowedIssuers: []string{"https://issuer.example.com"}})
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "URL must not overlap with disallowed issuers") {
		t.Fatal(err)
	}
}

func TestNilConfig(t *testing.T) {
	var c *Config
	if c.Anonymous() != nil || c.Issuers() != nil || c.Hash() != "" || c.Path() != "" {
		t.Fatal("nil config is not empty")
	}
}

func FuzzParse(f *testing.F) {
	for _, dir := range []string{"testdata/valid/*", "testdata/invalid/*"} {
		files, _ := filepath.Glob(dir)
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, LoadOptions{})
		if (c == nil) == (err == nil) {
			t.Fatalf("config %v with error %v", c, err)
		}
	})
}
