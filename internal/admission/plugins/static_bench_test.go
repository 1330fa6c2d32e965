package plugins

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/manifest"
)

// BenchmarkLoadValidated1000 loads 1,000 static policies with their
// bindings through the server's defaulting, API validation and CEL
// compilation, as start-up and every reload do.
func BenchmarkLoadValidated1000(b *testing.B) {
	dir := b.TempDir()
	for i := 0; i < 1000; i++ {
		doc := fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p%04d.static.k8s.io}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations:
  - expression: "object.metadata.name != 'blocked-%d'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: b%04d.static.k8s.io}
spec: {policyName: p%04d.static.k8s.io, validationActions: [Deny]}
`, i, i, i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%04d.yaml", i)), []byte(doc), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := manifest.Load(dir, manifest.ValidatingAdmissionPolicy, ValidateManifest); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdmitDuringReloads measures admission through a static policy
// while the configuration is reloaded continuously, against the same
// without reloads: a request never waits for a reload.
func BenchmarkAdmitDuringReloads(b *testing.B) {
	for _, reloading := range []bool{false, true} {
		b.Run(fmt.Sprintf("reloading=%v", reloading), func(b *testing.B) {
			dir := b.TempDir()
			writeSet := func(want string) {
				tmp := filepath.Join(dir, ".p.tmp")
				doc := fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: only.static.k8s.io}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  validations:
  - expression: "object.metadata.name != '%s'"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: only-binding.static.k8s.io}
spec: {policyName: only.static.k8s.io, validationActions: [Deny]}
`, want)
				_ = os.WriteFile(tmp, []byte(doc), 0o600)
				_ = os.Rename(tmp, filepath.Join(dir, "p.yaml"))
			}
			writeSet("x")
			st := watchStaticVAP(b, dir)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if reloading {
				go func() {
					for i := 0; ctx.Err() == nil; i++ {
						writeSet(fmt.Sprintf("y%d", i))
						time.Sleep(20 * time.Millisecond)
					}
				}()
			}
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"}}
			a := &admission.Attributes{Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Resource: corev1.SchemeGroupVersion.WithResource("configmaps"),
				RequestKind: corev1.SchemeGroupVersion.WithKind("ConfigMap"), RequestResource: corev1.SchemeGroupVersion.WithResource("configmaps"),
				Name: "c", Namespace: "default", Operation: admission.Create, Object: cm}
			var lat []time.Duration
			for b.Loop() {
				start := time.Now()
				p := st.get()
				_ = p.Validate(context.Background(), a)
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "p99-ns")
		})
	}
}
