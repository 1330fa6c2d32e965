package configfile

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestMetrics(t *testing.T) {
	at := time.Unix(1689101941, 500_000_000)
	opts := func(plugin string) MetricsOptions {
		return MetricsOptions{Controller: "test_controller", ReloadsHelp: "r", LastTimeHelp: "l", InfoHelp: "i", APIServerID: "me",
			ConstLabels: prometheus.Labels{"plugin": plugin}, Now: func() time.Time { return at }}
	}
	reg := prometheus.NewRegistry()
	a, err := NewMetrics(reg, opts("A"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewMetrics(reg, opts("B"))
	if err != nil {
		t.Fatal(err)
	}
	// Registering the same names and labels again shares the collectors.
	a2, err := NewMetrics(reg, opts("A"))
	if err != nil {
		t.Fatal(err)
	}
	id := Hash([]byte("me"))

	t.Run("nothing is reported before a configuration is recorded", func(t *testing.T) {
		if n, _ := testutil.GatherAndCount(reg); n != 0 {
			t.Fatalf("%d series", n)
		}
		if n, last := a.Reloads("success"); n != 0 || !last.IsZero() {
			t.Fatalf("Reloads = %v, %v", n, last)
		}
		if n, _ := testutil.GatherAndCount(reg); n != 0 {
			t.Fatalf("Reloads created %d series", n)
		}
	})
	t.Run("each label set counts apart", func(t *testing.T) {
		a.Failure()
		a2.Success("sha256:a")
		b.Success("")
		if n, last := a.Reloads("failure"); n != 1 || !last.Equal(at) {
			t.Fatalf("A failures %v at %v", n, last)
		}
		if n, _ := a.Reloads("success"); n != 1 {
			t.Fatalf("A successes %v", n)
		}
		if n, _ := b.Reloads("failure"); n != 0 {
			t.Fatalf("B failures %v", n)
		}
		want := `# HELP apiserver_test_controller_last_config_info i
# TYPE apiserver_test_controller_last_config_info gauge
apiserver_test_controller_last_config_info{apiserver_id_hash="` + id + `",hash="sha256:a",plugin="A"} 1
apiserver_test_controller_last_config_info{apiserver_id_hash="` + id + `",hash="",plugin="B"} 1
# HELP apiserver_test_controller_automatic_reloads_total r
# TYPE apiserver_test_controller_automatic_reloads_total counter
apiserver_test_controller_automatic_reloads_total{apiserver_id_hash="` + id + `",plugin="A",status="failure"} 1
apiserver_test_controller_automatic_reloads_total{apiserver_id_hash="` + id + `",plugin="A",status="success"} 1
apiserver_test_controller_automatic_reloads_total{apiserver_id_hash="` + id + `",plugin="B",status="success"} 1
`
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
			"apiserver_test_controller_last_config_info", "apiserver_test_controller_automatic_reloads_total"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("only the hash in use is reported", func(t *testing.T) {
		a.Loaded("sha256:b")
		want := `# HELP apiserver_test_controller_last_config_info i
# TYPE apiserver_test_controller_last_config_info gauge
apiserver_test_controller_last_config_info{apiserver_id_hash="` + id + `",hash="sha256:b",plugin="A"} 1
apiserver_test_controller_last_config_info{apiserver_id_hash="` + id + `",hash="",plugin="B"} 1
`
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "apiserver_test_controller_last_config_info"); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("nil metrics record nothing", func(t *testing.T) {
		var m *Metrics
		m.Success("x")
		m.Failure()
		m.Loaded("x")
		if n, _ := m.Reloads("success"); n != 0 {
			t.Fatal(n)
		}
	})
}
