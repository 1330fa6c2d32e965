package printers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPodStatus spells out the READY, STATUS and RESTARTS cells of the
// golden pods, so that a change to the status logic reads as one line here.
func TestPodStatus(t *testing.T) {
	want := map[string][3]string{
		"running":                    {"1/1", "Running", "0"},
		"pending-unscheduled":        {"0/1", "Pending", "0"},
		"container-creating":         {"0/1", "ContainerCreating", "0"},
		"completed":                  {"0/1", "Completed", "0"},
		"evicted":                    {"0/1", "Evicted", "0"},
		"crashloop":                  {"0/1", "CrashLoopBackOff", "5 (2m ago)"},
		"oomkilled":                  {"0/1", "OOMKilled", "0"},
		"exit-code":                  {"0/1", "ExitCode:3", "0"},
		"signal":                     {"0/1", "Signal:9", "0"},
		"terminating":                {"1/1", "Terminating", "0"},
		"terminating-succeeded":      {"0/1", "Completed", "0"},
		"node-lost":                  {"0/1", "Unknown", "0"},
		"scheduling-gated":           {"0/1", "SchedulingGated", "0"},
		"init-running":               {"0/1", "Init:0/1", "0"},
		"init-second-of-two":         {"0/1", "Init:1/2", "0"},
		"init-crashloop":             {"0/1", "Init:CrashLoopBackOff", "4 (30s ago)"},
		"init-exit-code":             {"0/1", "Init:ExitCode:1", "0"},
		"init-signal":                {"0/1", "Init:Signal:15", "0"},
		"init-error":                 {"0/1", "Init:Error", "0"},
		"sidecar":                    {"2/2", "Running", "3 (10m ago)"},
		"sidecar-starting":           {"0/2", "Init:0/2", "0"},
		"completed-beside-running":   {"1/2", "Running", "0"},
		"completed-beside-not-ready": {"1/2", "NotReady", "0"},
		"readiness-gates":            {"0/1", "Running", "0"},
	}
	pods := podCases()
	if len(pods) != len(want) {
		t.Fatalf("%d pods for %d expectations", len(pods), len(want))
	}
	for i := range pods {
		p := &pods[i]
		t.Run(p.Name, func(t *testing.T) {
			cells := podRow(p, now).Cells
			got := [3]string{cells[1].(string), cells[2].(string), cells[3].(string)}
			if diff := cmp.Diff(want[p.Name], got); diff != "" {
				t.Errorf("READY, STATUS, RESTARTS (-want +got):\n%s", diff)
			}
		})
	}
}
