package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/portcullis/portcullis/internal/tracing/tracingtest"
	"github.com/portcullis/portcullis/test/e2e/harness"
)

// TestTracing sends every request as a span to an OTLP collector named by
// --tracing-config-file, with kube-apiserver's span names and resource.
func TestTracing(t *testing.T) {
	t.Parallel()
	col, err := tracingtest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer col.Stop()
	cfg := filepath.Join(t.TempDir(), "tracing.yaml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: TracingConfiguration
endpoint: %s
samplingRatePerMillion: 1000000
`, col.Addr)), 0o600); err != nil {
		t.Fatal(err)
	}
	s := harness.Start(t, "--tracing-config-file", cfg)
	s.MustKubectl(t, "get", "pods", "-n", "default")
	s.MustKubectl(t, "create", "configmap", "traced", "--from-literal=a=b")
	want := map[string]bool{
		"GET /api/v1/namespaces/{:namespace}/pods":        false,
		"POST /api/v1/namespaces/{:namespace}/configmaps": false,
	}
	eventually(t, "spans at the collector", func() error {
		spans, _ := col.Spans()
		for _, sp := range spans {
			if _, ok := want[sp.Name]; ok && sp.Resource["service.name"] == "apiserver" && sp.Attributes["audit-id"] != "" {
				want[sp.Name] = true
			}
		}
		var missing []string
		for name, seen := range want {
			if !seen {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("missing %s among %d spans", strings.Join(missing, ", "), len(spans))
		}
		return nil
	})

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: apiserver.config.k8s.io/v1\nkind: TracingConfiguration\nsamplingRatePerMillion: 2000000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runPortcullis(t, "serve", "--data-dir", t.TempDir(), "--secure-port", "0", "--tracing-config-file", bad)
	if err == nil || !strings.Contains(out, "samplingRatePerMillion: Invalid value: 2000000: sampling rate per million must be less than or equal to one million") {
		t.Errorf("invalid tracing configuration: err=%v\n%s", err, out)
	}
}
