package value

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
)

// tagged is a toy provider: it writes tag+plaintext and reads only its own tag.
type tagged string

var errNotMine = errors.New("not my tag")

func (t tagged) ToStorage(_ context.Context, p, _ []byte) ([]byte, error) {
	return append([]byte(t), p...), nil
}

func (t tagged) FromStorage(_ context.Context, s, _ []byte) ([]byte, bool, error) {
	if !bytes.HasPrefix(s, []byte(t)) {
		return nil, false, errNotMine
	}
	return s[len(t):], false, nil
}

func TestChain(t *testing.T) {
	const aes1, aes2 = "k8s:enc:aesgcm:v1:key1:", "k8s:enc:aesgcm:v1:key2:"
	tests := []struct {
		name      string
		providers []Provider
		stored    string
		want      string
		stale     bool
		err       string
	}{
		{name: "first provider", providers: []Provider{{aes1, tagged("A")}}, stored: aes1 + "Ax", want: "x"},
		{name: "second provider is stale", providers: []Provider{{aes2, tagged("B")}, {aes1, tagged("A")}}, stored: aes1 + "Ax", want: "x", stale: true},
		{name: "same prefix, first key fails", providers: []Provider{{"k8s:enc:aesgcm:v1:", tagged("B")}, {"k8s:enc:aesgcm:v1:", tagged("A")}}, stored: "k8s:enc:aesgcm:v1:Ax", want: "x", stale: true},
		{name: "identity first reads clear text", providers: []Provider{{"", Identity{}}, {aes1, tagged("A")}}, stored: "plain", want: "plain"},
		{name: "identity first steps aside for encrypted values", providers: []Provider{{"", Identity{}}, {aes1, tagged("A")}}, stored: aes1 + "Ax", want: "x", stale: true},
		{name: "identity last reads clear text, stale", providers: []Provider{{aes1, tagged("A")}, {"", Identity{}}}, stored: "plain", want: "plain", stale: true},
		{name: "no provider for this key", providers: []Provider{{aes1, tagged("A")}}, stored: aes2 + "Bx", err: `no matching prefix found for "k8s:enc:aesgcm:v1:key2:"`},
		{name: "clear text without identity", providers: []Provider{{aes1, tagged("A")}}, stored: "plain", err: "no matching prefix found"},
		{name: "identity refuses encrypted data", providers: []Provider{{"", Identity{}}}, stored: aes1 + "Ax", err: `no matching prefix found for "k8s:enc:aesgcm:v1:key1:"`},
		{name: "every candidate fails", providers: []Provider{{aes1, tagged("B")}, {aes1, tagged("C")}}, stored: aes1 + "Ax",
			err: "decrypting with \"k8s:enc:aesgcm:v1:key1:\": not my tag\ndecrypting with \"k8s:enc:aesgcm:v1:key1:\": not my tag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewChain(nil, tt.providers...)
			if err != nil {
				t.Fatal(err)
			}
			got, stale, err := c.FromStorage(context.Background(), "secrets", []byte(tt.stored), nil)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || string(got) != tt.want || stale != tt.stale {
				t.Fatalf("got %q stale=%v err=%v, want %q stale=%v", got, stale, err, tt.want, tt.stale)
			}
		})
	}
}

func TestChainWritesWithFirst(t *testing.T) {
	c, _ := NewChain(nil, Provider{"k8s:enc:secretbox:v1:k:", tagged("S")}, Provider{"", Identity{}})
	got, err := c.ToStorage(context.Background(), "secrets", []byte("x"), nil)
	if err != nil || string(got) != "k8s:enc:secretbox:v1:k:Sx" {
		t.Fatalf("got %q, %v", got, err)
	}
	id, _ := NewChain(nil, Provider{"", Identity{}})
	if got, _ := id.ToStorage(context.Background(), "secrets", []byte("x"), nil); string(got) != "x" {
		t.Fatalf("identity wrote %q", got)
	}
	if _, err := NewChain(nil); err == nil {
		t.Fatal("empty chain accepted")
	}
}

func TestChainMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := NewMetrics(reg); err != nil || again.ops != m.ops {
		t.Fatalf("second NewMetrics on one registry: %v", err)
	}
	c, _ := NewChain(m, Provider{"k8s:enc:aescbc:v1:k:", tagged("A")}, Provider{"", Identity{}})
	ctx := context.Background()
	s, _ := c.ToStorage(ctx, "secrets", []byte("x"), nil)
	_, _, _ = c.FromStorage(ctx, "secrets", s, nil)
	_, _, _ = c.FromStorage(ctx, "configmaps", []byte("plain"), nil)
	_, _, _ = c.FromStorage(ctx, "secrets", []byte("k8s:enc:aescbc:v1:k:Bx"), nil)
	want := `
# HELP apiserver_storage_transformation_operations_total [ALPHA] Total number of transformations. Successful transformation will have a status 'OK' and a varied status string when the transformation fails. The status, resource, and transformation_type fields can be used for alerting purposes. For example, you can monitor for encryption/decryption failures using the transformation_type (e.g., from_storage for decryption and to_storage for encryption). Additionally, these fields can be used to ensure that the correct transformers are applied to each resource.
# TYPE apiserver_storage_transformation_operations_total counter
apiserver_storage_transformation_operations_total{resource="configmaps",status="OK",transformation_type="from_storage",transformer_prefix="identity"} 1
apiserver_storage_transformation_operations_total{resource="secrets",status="OK",transformation_type="from_storage",transformer_prefix="k8s:enc:aescbc:v1:k:"} 1
apiserver_storage_transformation_operations_total{resource="secrets",status="OK",transformation_type="to_storage",transformer_prefix="k8s:enc:aescbc:v1:k:"} 1
apiserver_storage_transformation_operations_total{resource="secrets",status="unknown-non-grpc",transformation_type="from_storage",transformer_prefix="k8s:enc:aescbc:v1:k:"} 1
`
	if err := testutil.CollectAndCompare(m.ops, strings.NewReader(want)); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(m.latency); n != 3 {
		t.Fatalf("latency series = %d, want 3", n)
	}
}

// FuzzChainFromStorage feeds arbitrary stored values to a chain: no
// panic, and a value is either read or refused with an error.
func FuzzChainFromStorage(f *testing.F) {
	c, _ := NewChain(nil,
		Provider{"k8s:enc:aesgcm:v1:key2:", tagged("B")},
		Provider{"k8s:enc:aesgcm:v1:key1:", tagged("A")},
		Provider{"", Identity{}})
	for _, seed := range []string{"", "plain", "k8s:enc:", "k8s:enc:aesgcm:v1:key1:Ax", "k8s:enc:aesgcm:v1:key3:", "k8s:enc:::::::", "k8s:enc:x"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, stored []byte) {
		out, _, err := c.FromStorage(context.Background(), "secrets", stored, nil)
		if err == nil && out == nil && len(stored) > 0 {
			t.Fatalf("%q: no value and no error", stored)
		}
	})
}

// TestChainLatencyOnlyOnSuccess checks that, as in kube-apiserver, the
// latency histogram times successful transformations only: failures are
// counted by the operations counter alone.
func TestChainLatencyOnlyOnSuccess(t *testing.T) {
	const prefix = "k8s:enc:aescbc:v1:k:"
	tests := []struct {
		name   string
		stored string
		label  string // transformer_prefix of the latency series
		want   int    // samples in it
	}{
		{name: "read", stored: prefix + "Ax", label: prefix, want: 1},
		{name: "provider fails", stored: prefix + "Bx", label: prefix, want: 0},
		{name: "no provider matches", stored: "k8s:enc:aescbc:v1:other:x", label: "unknown", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := NewMetrics(prometheus.NewRegistry())
			if err != nil {
				t.Fatal(err)
			}
			c, _ := NewChain(m, Provider{prefix, tagged("A")})
			_, _, _ = c.FromStorage(context.Background(), "secrets", []byte(tt.stored), nil)
			if n := testutil.CollectAndCount(m.ops); n != 1 {
				t.Fatalf("operations series = %d, want 1", n)
			}
			h, err := m.latency.GetMetricWithLabelValues(fromStorage, tt.label)
			if err != nil {
				t.Fatal(err)
			}
			var d dto.Metric
			if err := h.(prometheus.Metric).Write(&d); err != nil {
				t.Fatal(err)
			}
			if got := int(d.GetHistogram().GetSampleCount()); got != tt.want {
				t.Fatalf("latency samples = %d, want %d", got, tt.want)
			}
		})
	}
}
