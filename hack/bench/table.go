package main

import (
	"fmt"
	"io"
)

// result is one run of one workload on one server, or (Rep 0) the medians
// over the repetitions.
type result struct {
	Workload string `json:"workload"`
	Server   string `json:"server"`
	Rep      int    `json:"rep,omitempty"`
	// Ops completed in the window without error (events delivered for
	// watch-1000), and those that failed.
	Ops    int `json:"ops"`
	Errors int `json:"errors"`
	// Failed says the run itself failed (the server did not start, the
	// preparation failed); its figures are left out of the medians.
	Failed     bool    `json:"failed,omitempty"`
	FirstError string  `json:"firstError,omitempty"`
	ReqPerSec  float64 `json:"reqPerSec"`
	P50ms      float64 `json:"p50ms"`
	P99ms      float64 `json:"p99ms"`
	CPUms      float64 `json:"cpuMs"`
	CPUmsPerOp float64 `json:"cpuMsPerOp"`
	RSSMiB     float64 `json:"rssMiB"`
	StartMs    float64 `json:"startMs"`
	// ServerCPUPct is the server's CPU use in the window, in % of its one
	// core: well under 100 says it waits (on the disk, a lock), not works.
	ServerCPUPct float64 `json:"serverCpuPct"`
	// LoadCPUPct is the load generator's CPU use in the window, in % of
	// its one core.
	LoadCPUPct float64 `json:"loadCpuPct"`
	// Writes is the writer's creates per second, for watch-1000 only.
	Writes float64 `json:"writesPerSec,omitempty"`
}

const (
	reference  = "reference"
	portcullis = "portcullis"
)

// medians folds the runs of one workload on one server into one result.
func medians(runs []result) result {
	if len(runs) == 0 {
		return result{}
	}
	pick := func(f func(result) float64) float64 {
		var xs []float64
		for _, r := range runs {
			if !r.Failed {
				xs = append(xs, f(r))
			}
		}
		return median(xs)
	}
	m := result{Workload: runs[0].Workload, Server: runs[0].Server}
	for _, r := range runs {
		m.Ops += r.Ops
		m.Errors += r.Errors
		if m.FirstError == "" {
			m.FirstError = r.FirstError
		}
	}
	m.ReqPerSec = pick(func(r result) float64 { return r.ReqPerSec })
	m.P50ms = pick(func(r result) float64 { return r.P50ms })
	m.P99ms = pick(func(r result) float64 { return r.P99ms })
	m.CPUms = pick(func(r result) float64 { return r.CPUms })
	m.CPUmsPerOp = pick(func(r result) float64 { return r.CPUmsPerOp })
	m.RSSMiB = pick(func(r result) float64 { return r.RSSMiB })
	m.StartMs = pick(func(r result) float64 { return r.StartMs })
	m.ServerCPUPct = pick(func(r result) float64 { return r.ServerCPUPct })
	m.LoadCPUPct = pick(func(r result) float64 { return r.LoadCPUPct })
	m.Writes = pick(func(r result) float64 { return r.Writes })
	return m
}

// more formats portcullis / reference of a figure where more is better.
func more(p, r float64) string {
	if p <= 0 || r <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", p/r)
}

// less formats portcullis / reference of a figure where less is better as
// 1/N, N being how many times less portcullis needs.
func less(p, r float64) string {
	if p <= 0 || r <= 0 {
		return "-"
	}
	return fmt.Sprintf("1/%.2f", r/p)
}

// num formats a figure, "-" where the workload does not measure it.
func num(x float64, prec int) string {
	if x <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.*f", prec, x)
}

// writeTable writes one markdown table for a workload from the medians of
// each server (either may be missing: -only-portcullis).
func writeTable(w io.Writer, wl workload, rows map[string]result) {
	fmt.Fprintf(w, "\n### %s: %s\n\n", wl.name, wl.what)
	rate := "req/s"
	if wl.kind == kindWatch {
		rate = "events/s"
	}
	fmt.Fprintf(w, "| server | %s | p50 ms | p99 ms | CPU ms/%s | RSS MiB | start ms | server CPU %% | load CPU %% | errors |\n", rate, unitOf(wl))
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, s := range []string{reference, portcullis} {
		r, ok := rows[s]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %d |\n", s,
			num(r.ReqPerSec, 0), num(r.P50ms, 2), num(r.P99ms, 2), num(r.CPUmsPerOp, 3),
			num(r.RSSMiB, 1), num(r.StartMs, 0), num(r.ServerCPUPct, 0), num(r.LoadCPUPct, 0), r.Errors)
	}
	p, okP := rows[portcullis]
	r, okR := rows[reference]
	if okP && okR {
		fmt.Fprintf(w, "| portcullis / reference | %s | %s | %s | %s | %s | %s | | | |\n",
			more(p.ReqPerSec, r.ReqPerSec), less(p.P50ms, r.P50ms), less(p.P99ms, r.P99ms),
			less(p.CPUmsPerOp, r.CPUmsPerOp), less(p.RSSMiB, r.RSSMiB), less(p.StartMs, r.StartMs))
	}
	for _, s := range []string{reference, portcullis} {
		if r, ok := rows[s]; ok && r.FirstError != "" {
			fmt.Fprintf(w, "\n%s: first error: %s\n", s, r.FirstError)
		}
	}
}

// unitOf names what the CPU column divides by.
func unitOf(wl workload) string {
	if wl.kind == kindWatch {
		return "event"
	}
	return "req"
}
