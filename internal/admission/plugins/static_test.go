package plugins

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/manifest"
	"github.com/portcullis/portcullis/internal/admission/policy"
)

// staticSet writes a complete static configuration that denies ConfigMaps
// whose label v is not want: whichever set is in force, v=other is denied.
func staticSet(t *testing.T, dir, want string) {
	t.Helper()
	doc := fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: only-%[1]s.static.k8s.io}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations:
  - expression: "object.metadata.labels['v'] == '%[1]s'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: only-%[1]s-binding.static.k8s.io}
spec: {policyName: only-%[1]s.static.k8s.io, validationActions: [Deny]}
`, want)
	tmp := filepath.Join(dir, ".policies.yaml.tmp")
	if err := os.WriteFile(tmp, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, "policies.yaml")); err != nil {
		t.Fatal(err)
	}
}

// TestStaticReloadIsAtomic reloads a static configuration 100 times under
// concurrent requests: no request may see a configuration between two sets.
func TestStaticReloadIsAtomic(t *testing.T) {
	dir := t.TempDir()
	staticSet(t, dir, "a")
	st := watchStaticVAP(t, dir)

	var allowed, checked atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				p := st.get()
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default", Labels: map[string]string{"v": "neither"}}}
				a := &admission.Attributes{Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Resource: corev1.SchemeGroupVersion.WithResource("configmaps"),
					RequestKind: corev1.SchemeGroupVersion.WithKind("ConfigMap"), RequestResource: corev1.SchemeGroupVersion.WithResource("configmaps"),
					Name: "c", Namespace: "default", Operation: admission.Create, Object: cm}
				if err := p.Validate(context.Background(), a); err == nil {
					allowed.Add(1)
				}
				checked.Add(1)
			}
		}()
	}
	for i := 0; i < 100; i++ {
		before := st.cur.Load()
		staticSet(t, dir, []string{"b", "a"}[i%2])
		// Check reloads now; the watcher's own loop may have been first.
		if !st.w.Check() && st.cur.Load() == before {
			t.Fatalf("reload %d not applied", i)
		}
	}
	close(stop)
	wg.Wait()
	if allowed.Load() != 0 {
		t.Errorf("%d of %d requests saw no complete configuration", allowed.Load(), checked.Load())
	}
	if checked.Load() == 0 {
		t.Error("no request was checked")
	}
}

// watchStaticVAP follows the static ValidatingAdmissionPolicy manifests in
// dir as the server does, until the test ends.
func watchStaticVAP(tb testing.TB, dir string) *static[*policy.Plugin] {
	tb.Helper()
	log := slog.New(slog.DiscardHandler)
	st, err := watchStatic(nil, dir, manifest.ValidatingAdmissionPolicy, func() (*policy.Plugin, error) {
		return policy.New(policy.Options{Static: true, Log: log}), nil
	}, Deps{Log: log})
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); st.w.Run(ctx) }()
	tb.Cleanup(func() { cancel(); <-done })
	return st
}
