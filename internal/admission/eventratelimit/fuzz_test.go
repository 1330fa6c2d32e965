package eventratelimit

import (
	"testing"

	clocktesting "k8s.io/utils/clock/testing"
)

// FuzzNew feeds arbitrary bytes to the configuration decoder and
// validation: they may fail, never panic, and a configuration they accept
// builds a plugin.
func FuzzNew(f *testing.F) {
	f.Add([]byte("apiVersion: eventratelimit.admission.k8s.io/v1alpha1\nkind: Configuration\nlimits:\n- type: Namespace\n  qps: 1\n  burst: 2\n  cacheSize: 3\n"))
	f.Add([]byte(`{"apiVersion":"eventratelimit.admission.k8s.io/v1alpha1","kind":"Configuration","limits":[{"type":"Server","qps":1,"burst":1}]}`))
	f.Add([]byte(`{"apiVersion":"eventratelimit.admission.k8s.io/v1alpha1","kind":"Configuration","limits":[{"type":"User","qps":1,"burst":1,"burst":2}]}`))
	f.Add([]byte("limits: [\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Decode(data)
		if err != nil {
			return
		}
		p, err := NewFromConfig(cfg, clocktesting.NewFakePassiveClock(epoch))
		if err == nil && len(p.limits) != len(cfg.Limits) {
			t.Fatalf("%d limits configured, %d built", len(cfg.Limits), len(p.limits))
		}
	})
}
