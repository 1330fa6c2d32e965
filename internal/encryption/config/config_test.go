package config

import (
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// testFiles returns the configuration files (not the goldens) in dir.
func testFiles(t testing.TB, dir string) []string {
	t.Helper()
	all, err := filepath.Glob(filepath.Join("testdata", dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range all {
		if !strings.HasSuffix(f, ".golden") {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no files in testdata/%s", dir)
	}
	return out
}

// checkGolden compares got with f's golden (NAME.golden beside it);
// go test -update rewrites the golden instead.
func checkGolden(t *testing.T, f, got string) {
	t.Helper()
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
		t.Errorf("%s (-want +got):\n%s", golden, diff)
	}
}

// probes are the resources whose match each valid golden records.
var probes = []string{
	"secrets", "configmaps", "events", "pods", "pandas.awesome.bears.example",
	"deployments.apps", "statefulsets.apps", "leases.coordination.k8s.io", "events.events.k8s.io",
}

// renderValid prints what a loaded configuration means: which entry
// governs each probe, the KMS providers and the defaulted entries, with
// the secrets redacted.
func renderValid(t *testing.T, c *Config) string {
	var b strings.Builder
	b.WriteString("# resource: Match MatchAll\n")
	for _, r := range probes {
		gr := schema.ParseGroupResource(r)
		fmt.Fprintf(&b, "%s: %d %v\n", r, c.Match(gr), c.MatchAll(gr))
	}
	b.WriteString("# KMSProviders\n")
	for _, k := range c.KMSProviders() {
		js, err := yaml.Marshal(k)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "- %s\n", strings.ReplaceAll(strings.TrimSpace(string(js)), "\n", "\n  "))
	}
	b.WriteString("# Resources\n")
	res := make([]apiserverv1.ResourceConfiguration, len(c.Resources))
	for i, rc := range c.Resources {
		res[i] = *rc.DeepCopy()
		for j := range res[i].Providers {
			res[i].Providers[j] = redactProvider(res[i].Providers[j])
		}
	}
	js, err := yaml.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	b.Write(js)
	return b.String()
}

// TestValidFiles loads each valid file (among them the documentation's
// examples) and compares what it means with its golden.
func TestValidFiles(t *testing.T) {
	for _, f := range testFiles(t, "valid") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			c, err := Load(f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("sha256:%x", sha256.Sum256(data)); c.Hash != want || c.Path != f {
				t.Errorf("hash %q path %q, want %q %q", c.Hash, c.Path, want, f)
			}
			checkGolden(t, f, renderValid(t, c))
		})
	}
}

// renderError puts each error of an aggregate on its own line.
func renderError(err error) string {
	return strings.ReplaceAll(err.Error(), ", resources[", ",\n  resources[") + "\n"
}

// TestInvalidFiles compares the error for each invalid file with its
// golden and checks that it is one of the sentinels.
func TestInvalidFiles(t *testing.T) {
	for _, f := range testFiles(t, "invalid") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Parse(data, Options{})
			if err == nil {
				t.Fatalf("accepted: %v", c)
			}
			if !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrDecode) && !errors.Is(err, ErrInvalid) {
				t.Fatalf("error matches no sentinel: %v", err)
			}
			checkGolden(t, f, renderError(err))
		})
	}
}

func TestLoadErrorsNameThePath(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.yaml")
	_, err := Load(missing, Options{})
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), fmt.Sprintf("%q", missing)) {
		t.Errorf("missing file: %v", err)
	}

	for _, tc := range []struct {
		file     string
		sentinel error
	}{
		{"empty.yaml", ErrEmpty},
		{"syntax.yaml", ErrDecode},
		{"key-lengths.yaml", ErrInvalid},
	} {
		t.Run(tc.file, func(t *testing.T) {
			f := filepath.Join("testdata", "invalid", tc.file)
			_, err := Load(f, Options{})
			if !errors.Is(err, tc.sentinel) {
				t.Fatalf("got %v, want %v", err, tc.sentinel)
			}
			want := fmt.Sprintf("error loading encryption provider configuration file %q: ", f)
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("got %q, want prefix %q", err, want)
			}
		})
	}
}

func TestHashIsOfTheBytes(t *testing.T) {
	a := doc("resources:\n- resources: [secrets]\n  providers: [identity: {}]\n")
	b := append([]byte("# a comment changes the hash\n"), a...)
	ca, err := Parse(a, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cb, err := Parse(b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ca.Hash != fmt.Sprintf("sha256:%x", sha256.Sum256(a)) || ca.Hash == cb.Hash {
		t.Errorf("hashes %q %q", ca.Hash, cb.Hash)
	}
	if ca.Path != "" {
		t.Errorf("Parse set Path %q", ca.Path)
	}
}

func TestDefaults(t *testing.T) {
	c, err := Parse(doc(`resources:
- resources: [secrets]
  providers:
  - kms: {apiVersion: v2, name: a, endpoint: "unix:///a.sock"}
  - kms: {apiVersion: v2, name: b, endpoint: "unix:///b.sock", timeout: 250ms}
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	kms := c.KMSProviders()
	if len(kms) != 2 {
		t.Fatalf("got %d providers", len(kms))
	}
	if got := kms[0].Timeout.Duration.String(); got != "3s" || kms[0].CacheSize != nil {
		t.Errorf("defaulted: timeout %s cachesize %v", got, kms[0].CacheSize)
	}
	if got := kms[1].Timeout.Duration.String(); got != "250ms" {
		t.Errorf("explicit timeout became %s", got)
	}
	// Resources is defaulted too, not only the copies.
	if c.Resources[0].Providers[0].KMS.Timeout == nil {
		t.Error("Resources not defaulted")
	}

	var k apiserverv1.KMSConfiguration
	defaultKMS(&k)
	if k.APIVersion != "v1" || k.CacheSize == nil || *k.CacheSize != 1000 || k.Timeout.Duration.String() != "3s" {
		t.Errorf("v1 defaults: %+v", k)
	}
}

func TestNilConfig(t *testing.T) {
	var c *Config
	if c.Match(schema.GroupResource{Resource: "secrets"}) != -1 || c.MatchAll(schema.GroupResource{}) != nil || c.KMSProviders() != nil {
		t.Error("nil Config matched something")
	}
	if c.String() == "" {
		t.Error("nil Config has no String")
	}
}
