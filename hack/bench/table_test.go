package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestMedians(t *testing.T) {
	runs := []result{
		{Workload: "get-16", Server: portcullis, Rep: 1, Ops: 10, ReqPerSec: 100, P99ms: 3, RSSMiB: 50},
		{Workload: "get-16", Server: portcullis, Rep: 2, Ops: 30, Errors: 1, FirstError: "boom", ReqPerSec: 300, P99ms: 1, RSSMiB: 70},
		{Workload: "get-16", Server: portcullis, Rep: 3, Ops: 20, ReqPerSec: 200, P99ms: 2, RSSMiB: 60},
		{Workload: "get-16", Server: portcullis, Rep: 4, Errors: 1, Failed: true, FirstError: "did not start"},
	}
	want := result{Workload: "get-16", Server: portcullis, Ops: 60, Errors: 2, FirstError: "boom", ReqPerSec: 200, P99ms: 2, RSSMiB: 60}
	if d := cmp.Diff(want, medians(runs)); d != "" {
		t.Errorf("medians (-want +got):\n%s", d)
	}
}

func TestTable(t *testing.T) {
	wl := func(name string) workload {
		for _, w := range workloads() {
			if w.name == name {
				return w
			}
		}
		t.Fatalf("no workload %s", name)
		return workload{}
	}
	for _, tc := range []struct {
		name string
		wl   workload
		rows map[string]result
	}{
		{
			name: "both",
			wl:   wl("create-cm-16"),
			rows: map[string]result{
				reference:  {ReqPerSec: 400, P50ms: 30, P99ms: 80, CPUmsPerOp: 2.5, RSSMiB: 330, StartMs: 4000},
				portcullis: {ReqPerSec: 1200, P50ms: 10, P99ms: 20, CPUmsPerOp: 0.8, RSSMiB: 60, StartMs: 400, ServerCPUPct: 96, LoadCPUPct: 45},
			},
		},
		{
			name: "watch",
			wl:   wl("watch-1000"),
			rows: map[string]result{
				reference:  {ReqPerSec: 20000, P50ms: 40, P99ms: 90, CPUmsPerOp: 0.04, RSSMiB: 350, StartMs: 4000},
				portcullis: {ReqPerSec: 30000, P50ms: 20, P99ms: 45, CPUmsPerOp: 0.02, RSSMiB: 100, StartMs: 500, LoadCPUPct: 99},
			},
		},
		{
			name: "portcullis only, with an error",
			wl:   wl("startup"),
			rows: map[string]result{portcullis: {StartMs: 450, Errors: 1, FirstError: "port 36443 is in use"}},
		},
		{
			name: "a failed reference run",
			wl:   wl("get-16"),
			rows: map[string]result{
				reference:  {Errors: 1, FirstError: "kube-apiserver: server exited before it was ready"},
				portcullis: {ReqPerSec: 9000, P50ms: 1, P99ms: 4, CPUmsPerOp: 0.1, RSSMiB: 60, StartMs: 400},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			writeTable(&b, tc.wl, tc.rows)
			golden := filepath.Join("testdata", "table-"+tc.wl.name+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(want), b.String()); d != "" {
				t.Errorf("table (-want +got):\n%s", d)
			}
		})
	}
}

func TestRatios(t *testing.T) {
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{name: "more", got: more(300, 100), want: "3.00x"},
		{name: "more, slower", got: more(84, 100), want: "0.84x"},
		{name: "less", got: less(50, 300), want: "1/6.00"},
		{name: "less, worse", got: less(117, 100), want: "1/0.85"},
		{name: "missing", got: less(0, 100), want: "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("= %q, want %q", tc.got, tc.want)
			}
		})
	}
}

func TestSelectWorkloads(t *testing.T) {
	all, err := selectWorkloads("all")
	if err != nil || len(all) != len(workloads()) {
		t.Fatalf("all = %d workloads, %v", len(all), err)
	}
	seen := map[string]bool{}
	for _, w := range all {
		if seen[w.name] {
			t.Errorf("duplicate workload %s", w.name)
		}
		seen[w.name] = true
	}
	two, err := selectWorkloads("pods-1024,get-16")
	if err != nil || len(two) != 2 || two[0].name != "pods-1024" || two[1].name != "get-16" {
		t.Errorf("two = %v, %v", two, err)
	}
	if _, err := selectWorkloads("get-17"); err == nil {
		t.Error("unknown workload accepted")
	}
}
