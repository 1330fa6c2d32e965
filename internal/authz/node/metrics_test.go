package node

import (
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

func TestGraphMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	a := newTestAuthorizer(t, Options{Registerer: reg})
	a.Upsert(testPod("ns", "p", "n1", withSecretVolume("s")))
	a.Upsert(testPV("pv", "ns", "c", csiPV("pv", "ns", "c", "d", nil).Spec.PersistentVolumeSource))
	a.Upsert(testVA("va", "n1"))
	a.Delete(testPod("ns", "p", ""))

	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]uint64{}
	for _, f := range families {
		if f.GetName() != "node_authorizer_graph_actions_duration_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "operation" {
					counts[l.GetValue()] = m.GetHistogram().GetSampleCount()
				}
			}
		}
	}
	for op, want := range map[string]uint64{"AddPod": 1, "DeletePod": 1, "AddPV": 1, "AddVolumeAttachment": 1, "DeletePV": 0} {
		if counts[op] != want {
			t.Errorf("operation %s: %d samples, want %d (all: %v)", op, counts[op], want, counts)
		}
	}

	if _, err := New(Options{Registerer: reg}); !errors.Is(err, ErrMetrics) {
		t.Errorf("second registration: %v, want ErrMetrics", err)
	}
}
