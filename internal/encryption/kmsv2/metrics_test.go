package kmsv2

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/portcullis/portcullis/internal/encryption/kmsv2/kmstest"
)

// counterValue is the value of the one series of name whose labels
// include labels (a counter's or gauge's value, a histogram's count).
func counterValue(t *testing.T, reg prometheus.Gatherer, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var found []float64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if !hasLabels(m, labels) {
				continue
			}
			switch {
			case m.Counter != nil:
				found = append(found, m.Counter.GetValue())
			case m.Gauge != nil:
				found = append(found, m.Gauge.GetValue())
			case m.Histogram != nil:
				found = append(found, float64(m.Histogram.GetSampleCount()))
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s%v: %d series, want 1", name, labels, len(found))
	}
	return found[0]
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	got := map[string]string{}
	for _, l := range m.GetLabel() {
		got[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// labelNames is the sorted label names of every series of name.
func labelNames(t *testing.T, reg prometheus.Gatherer, name string) string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name || len(mf.GetMetric()) == 0 {
			continue
		}
		var names []string
		for _, l := range mf.GetMetric()[0].GetLabel() {
			names = append(names, l.GetName())
		}
		sort.Strings(names)
		return strings.Join(names, ",")
	}
	return ""
}

// during reports whether ts, a timestamp in Unix seconds, lies between
// started (to the second) and now.
func during(ts float64, started time.Time) bool {
	return ts >= float64(started.Unix()) && ts <= float64(time.Now().Unix()+1)
}

func TestMetrics(t *testing.T) {
	started := time.Now()
	e := newEnv(t)
	stored := mustToStorage(t, e.p, "x", key1)
	mustToStorage(t, e.p, "y", key1)
	mustFromStorage(t, e.p, stored, key1)

	// A second server on the same registry (a config reload) reuses the
	// collectors.
	p2 := e.newProvider(t, Config{Name: "kms1", Registerer: e.reg, APIServerID: "apiserver-1", Timeout: 2 * time.Second})
	mustFromStorage(t, p2, stored, key1)

	keyHash := hashIfNotEmpty(kmstest.DefaultKeyID)
	apiHash := hashIfNotEmpty("apiserver-1")
	if !strings.HasPrefix(keyHash, "sha256:") || len(keyHash) != len("sha256:")+64 {
		t.Fatalf("key id hash %q", keyHash)
	}
	usage := func(typ string) map[string]string {
		return map[string]string{"transformation_type": typ, "provider_name": "kms1", "key_id_hash": keyHash, "apiserver_id_hash": apiHash}
	}
	for _, tt := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"apiserver_envelope_encryption_key_id_hash_total", usage(toStorageLabel), 2},
		{"apiserver_envelope_encryption_key_id_hash_total", usage(fromStorageLabel), 2},
		{"apiserver_envelope_encryption_dek_source_cache_size", map[string]string{"provider_name": "kms1"}, 1},
		{"apiserver_storage_envelope_transformation_cache_misses_total", nil, 1},
		{"apiserver_storage_data_key_generation_duration_seconds", nil, 1},
		{"apiserver_storage_data_key_generation_failures_total", nil, 0},
		{"apiserver_envelope_encryption_kms_operations_latency_seconds", map[string]string{"provider_name": "kms1", "method_name": "/v2.KeyManagementService/Encrypt", "grpc_status_code": "OK"}, 1},
		{"apiserver_envelope_encryption_kms_operations_latency_seconds", map[string]string{"provider_name": "kms1", "method_name": "/v2.KeyManagementService/Decrypt", "grpc_status_code": "OK"}, 1},
		{"apiserver_envelope_encryption_kms_operations_latency_seconds", map[string]string{"provider_name": "kms1", "method_name": "/v2.KeyManagementService/Status", "grpc_status_code": "OK"}, 1},
	} {
		if got := counterValue(t, e.reg, tt.name, tt.labels); got != tt.want {
			t.Errorf("%s%v = %v, want %v", tt.name, tt.labels, got, tt.want)
		}
	}
	if got := counterValue(t, e.reg, "apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds", usage(toStorageLabel)); !during(got, started) {
		t.Errorf("last used timestamp %v, want one of this test (started %v)", got, started)
	}
	if got := counterValue(t, e.reg, "apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds", map[string]string{"provider_name": "kms1", "key_id_hash": keyHash, "apiserver_id_hash": apiHash}); !during(got, started) {
		t.Errorf("status timestamp %v, want one of this test (started %v)", got, started)
	}

	wantLabels := map[string]string{
		"apiserver_envelope_encryption_key_id_hash_total":                         "apiserver_id_hash,key_id_hash,provider_name,transformation_type",
		"apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds":        "apiserver_id_hash,key_id_hash,provider_name,transformation_type",
		"apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds": "apiserver_id_hash,key_id_hash,provider_name",
		"apiserver_envelope_encryption_kms_operations_latency_seconds":            "grpc_status_code,method_name,provider_name",
		"apiserver_envelope_encryption_dek_source_cache_size":                     "provider_name",
	}
	for name, want := range wantLabels {
		if got := labelNames(t, e.reg, name); got != want {
			t.Errorf("%s labels %q, want %q", name, got, want)
		}
	}
	if n := testutil.CollectAndCount(e.reg, "apiserver_storage_envelope_transformation_cache_misses_total"); n != 1 {
		t.Errorf("cache misses series = %d", n)
	}
}

func TestMetricsInvalidKeyIDAndFailures(t *testing.T) {
	e := newEnv(t)
	e.plugin.SetKeyID("")
	_ = e.p.Check(context.Background())
	e.plugin.SetFail(kmstest.MethodStatus, true)
	_ = e.p.Check(context.Background())
	if got := counterValue(t, e.reg, "apiserver_envelope_encryption_invalid_key_id_from_status_total", map[string]string{"provider_name": "kms1", "error": "empty"}); got != 1 {
		t.Errorf("invalid key id = %v", got)
	}
	if got := counterValue(t, e.reg, "apiserver_envelope_encryption_kms_operations_latency_seconds", map[string]string{"method_name": "/v2.KeyManagementService/Status", "grpc_status_code": "Internal"}); got != 1 {
		t.Errorf("failed Status calls = %v", got)
	}
}

func TestMetricsHelp(t *testing.T) {
	m, err := newMetricSet(prometheus.NewRegistry(), "p", "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range []prometheus.Collector{m.keyIDTotal, m.keyIDLastUsed, m.keyIDStatusLast, m.kmsLatency, m.invalidKeyID, m.dekSourceCacheSize, m.dataKeyGeneration, m.dataKeyGenerationFailures, m.cacheMisses} {
		ch := make(chan *prometheus.Desc, 1)
		c.Describe(ch)
		d := (<-ch).String()
		name := d[strings.Index(d, `fqName: "`)+9:]
		name = name[:strings.Index(name, `"`)]
		help := d[strings.Index(d, `help: "`)+7:]
		got[name] = help[:strings.Index(help, `", `)]
	}
	want := map[string]string{
		"apiserver_envelope_encryption_key_id_hash_total":                         "[ALPHA] Number of times a keyID is used split by transformation type, provider, and apiserver identity.",
		"apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds":        "[ALPHA] The last time in seconds when a keyID was used.",
		"apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds": "[ALPHA] The last time in seconds when a keyID was returned by the Status RPC call.",
		"apiserver_envelope_encryption_kms_operations_latency_seconds":            "[ALPHA] KMS operation duration with gRPC error code status total.",
		"apiserver_envelope_encryption_invalid_key_id_from_status_total":          "[ALPHA] Number of times an invalid keyID is returned by the Status RPC call split by error.",
		"apiserver_envelope_encryption_dek_source_cache_size":                     "[ALPHA] Number of records in data encryption key (DEK) source cache. On a restart, this value is an approximation of the number of decrypt RPC calls the server will make to the KMS plugin.",
		"apiserver_storage_data_key_generation_duration_seconds":                  "[ALPHA] Latencies in seconds of data encryption key(DEK) generation operations.",
		"apiserver_storage_data_key_generation_failures_total":                    "[ALPHA] Total number of failed data encryption key(DEK) generation operations.",
		"apiserver_storage_envelope_transformation_cache_misses_total":            "[ALPHA] Total number of cache misses while accessing key decryption key(KEK).",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("help texts (-want +got):\n%s", d)
	}
}

func TestKeyIDSeriesAreBounded(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := newMetricSet(reg, "p", "a")
	if err != nil {
		t.Fatal(err)
	}
	for i := range seriesLimit + 20 {
		m.recordKeyID(toStorageLabel, hashIfNotEmpty(string(rune('a'+i))))
		m.recordStatusKeyID(hashIfNotEmpty(string(rune('a' + i))))
	}
	for _, name := range []string{
		"apiserver_envelope_encryption_key_id_hash_total",
		"apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds",
		"apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds",
	} {
		if n := testutil.CollectAndCount(reg, name); n != seriesLimit {
			t.Errorf("%s has %d series, want %d", name, n, seriesLimit)
		}
	}
}

func TestMetricsConflict(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(prometheus.NewCounter(prometheus.CounterOpts{Name: "apiserver_envelope_encryption_key_id_hash_total", Help: "other"}))
	_, err := New(Config{Name: "x", Endpoint: "unix:///nonexistent.sock", Registerer: reg})
	if err == nil || !strings.Contains(err.Error(), "metrics") {
		t.Fatalf("New with a conflicting registry: %v", err)
	}
}
