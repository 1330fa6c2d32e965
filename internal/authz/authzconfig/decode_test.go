package authzconfig

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestParseGoldens decodes every file under testdata/parse and compares
// the outcome (the defaulted configuration, or every error) with its
// golden. ${KUBECONFIG} stands for an existing kubeconfig file and ${DIR}
// for its directory.
func TestParseGoldens(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "webhook.kubeconfig")
	writeFile(t, kubeconfig, "apiVersion: v1\nkind: Config\n")
	inputs, err := filepath.Glob(filepath.Join("testdata", "parse", "*.*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range inputs {
		if strings.HasSuffix(in, ".golden") {
			continue
		}
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.NewReplacer("${KUBECONFIG}", kubeconfig, "${DIR}", dir).Replace(string(data))
			out := describe(Parse([]byte(text)))
			out = strings.ReplaceAll(out, dir, "${DIR}")
			compareGolden(t, strings.TrimSuffix(in, filepath.Ext(in))+".golden", []byte(out))
		})
	}
}

// describe renders a Parse outcome for a golden file.
func describe(cfg *Config, err error) string {
	var invalid *InvalidError
	switch {
	case errors.As(err, &invalid):
		var b strings.Builder
		b.WriteString("INVALID\n")
		for _, e := range invalid.Errs {
			fmt.Fprintln(&b, e.Error())
		}
		return b.String()
	case err != nil:
		return fmt.Sprintf("ERROR (decode: %v)\n%v\n", errors.Is(err, ErrDecode), err)
	}
	out, merr := yaml.Marshal(cfg.Authorizers())
	if merr != nil {
		return merr.Error()
	}
	var counts []string
	for i, m := range cfg.matchers {
		counts = append(counts, fmt.Sprintf("%d:%d", i, m.Len()))
	}
	return "OK (compiled match conditions " + strings.Join(counts, " ") + ")\n" + string(out)
}

func TestTooManyMatchConditions(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "k")
	writeFile(t, kubeconfig, "")
	var conds []string
	for i := range 65 {
		conds = append(conds, fmt.Sprintf("        - expression: request.user == 'u%d'", i))
	}
	for _, n := range []int{64, 65} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			data := configYAML(webhookEntry("w", kubeconfig, "      matchConditions:", strings.Join(conds[:n], "\n")))
			_, err := Parse([]byte(data))
			if n == 64 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			want := "authorizers[0].matchConditions: Too many: 65: must have at most 64 items"
			if err == nil || err.Error() != want || !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want %q", err, want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "authz.yaml")
	if _, err := Load(path); !errors.Is(err, ErrDecode) {
		t.Fatalf("missing file: %v", err)
	}
	writeFile(t, path, configYAML(nodeEntry, rbacEntry))
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Has(TypeNode) || !cfg.Has(TypeRBAC) || cfg.Has(TypeWebhook) {
		t.Fatalf("Has is wrong for %+v", cfg.Authorizers())
	}
	// Authorizers returns a copy.
	cfg.Authorizers()[0].Name = "changed"
	if cfg.Authorizers()[0].Name != "node" {
		t.Fatal("Authorizers exposed the configuration")
	}
}
