package imagepolicy

import (
	"testing"
	"time"
)

// FuzzDecode feeds arbitrary bytes to the configuration decoder and the
// normalization of its durations: they may fail, never panic, and what
// they accept is within kube-apiserver's bounds.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("imagePolicy:\n  kubeConfigFile: /k\n  allowTTL: 50\n  denyTTL: 50\n  retryBackoff: 500\n  defaultAllow: true\n"))
	f.Add([]byte(`{"imagePolicy":{"kubeConfigFile":"/k","allowTTL":-1,"denyTTL":0,"retryBackoff":9223372036854775807}}`))
	f.Add([]byte("imagePolicy:\n  allowTTL: 1\n  allowTTL: 2\n"))
	f.Add([]byte("podNodeSelectorPluginConfig: [1, {a: b}]\nimagePolicy: {}\n"))
	f.Add([]byte("imagePolicy: [\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Decode(data)
		if err != nil {
			return
		}
		wc := cfg.ImagePolicy
		if err := wc.Normalize(); err != nil {
			return
		}
		if wc.AllowTTL != 0 && (wc.AllowTTL < time.Second || wc.AllowTTL > 30*time.Minute) {
			t.Fatalf("allowTTL %v accepted", wc.AllowTTL)
		}
		if wc.DenyTTL != 0 && (wc.DenyTTL < time.Second || wc.DenyTTL > 30*time.Minute) {
			t.Fatalf("denyTTL %v accepted", wc.DenyTTL)
		}
		if wc.RetryBackoff < 0 || wc.RetryBackoff > 5*time.Minute {
			t.Fatalf("retryBackoff %v accepted", wc.RetryBackoff)
		}
	})
}
