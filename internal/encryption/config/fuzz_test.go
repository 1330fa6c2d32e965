package config

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// FuzzParse feeds arbitrary files to Parse: it must not panic, must fail
// with one of its sentinels, and a configuration it accepts must answer
// Match and KMSProviders consistently. The seeds are the test files.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"valid", "invalid"} {
		for _, name := range testFiles(f, dir) {
			data, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data, false)
			f.Add(data, true)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, reload bool) {
		c, err := Parse(data, Options{Reload: reload})
		if err != nil {
			if !errors.Is(err, ErrEmpty) && !errors.Is(err, ErrDecode) && !errors.Is(err, ErrInvalid) {
				t.Fatalf("error matches no sentinel: %v", err)
			}
			return
		}
		if !strings.HasPrefix(c.Hash, "sha256:") || len(c.Resources) == 0 {
			t.Fatalf("hash %q, %d entries", c.Hash, len(c.Resources))
		}
		for _, rc := range c.Resources {
			for _, res := range append(rc.Resources, "secrets", "deployments.apps") {
				gr := schema.ParseGroupResource(res)
				all := c.MatchAll(gr)
				if m := c.Match(gr); m < -1 || m >= len(c.Resources) || (m == -1) != (len(all) == 0) {
					t.Fatalf("Match(%v) = %d, MatchAll %v", gr, m, all)
				}
				for i := 1; i < len(all); i++ {
					if all[i] <= all[i-1] {
						t.Fatalf("MatchAll(%v) = %v not in order", gr, all)
					}
				}
			}
		}
		seen := map[string]bool{}
		for _, k := range c.KMSProviders() {
			if seen[k.Name] || k.APIVersion != "v2" || k.Timeout == nil || k.Timeout.Duration <= 0 {
				t.Fatalf("KMS provider %+v", k)
			}
			seen[k.Name] = true
		}
	})
}

// largeResourceList is a file whose one resource list has n distinct
// resources and ends with '*.*', which overlaps them all: invalid.
func largeResourceList(n int) []byte {
	var b strings.Builder
	b.WriteString(header + "resources:\n- providers: [identity: {}]\n  resources:\n")
	for i := range n {
		b.WriteString("  - r")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(".g")
		b.WriteString(string(rune('a' + (i/26)%26)))
		b.WriteString(string(rune('a' + (i/676)%26)))
		b.WriteString(string(rune('a' + (i/17576)%26)))
		b.WriteString("\n")
	}
	b.WriteString("  - '*.*'\n")
	return []byte(b.String())
}

// TestLargeFile checks a resource list of 100,000 entries. kube-apiserver
// compares a resource list pairwise, which on this file takes minutes: a
// quadratic rule here would hit the test timeout; BenchmarkLargeFile
// measures the cost per resource.
func TestLargeFile(t *testing.T) {
	if _, err := Parse(largeResourceList(100000), Options{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("got %v, want %v", err, ErrInvalid)
	}
}

// BenchmarkLargeFile parses resource lists of growing length and reports
// the time per resource, flat while the rules stay linear.
func BenchmarkLargeFile(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("resources=%d", n), func(b *testing.B) {
			data := largeResourceList(n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(data, Options{}); !errors.Is(err, ErrInvalid) {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/resource")
		})
	}
}
