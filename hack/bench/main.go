package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The bench re-executes itself under taskset; these carry what the first
// process found and built to the pinned one.
const (
	envPinned     = "PORTCULLIS_BENCH_PINNED"
	envPortcullis = "PORTCULLIS_BENCH_BINARY"
	envTemp       = "PORTCULLIS_BENCH_TMP"
)

var errNoReference = errors.New("no reference binaries")

func main() {
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	var (
		names    = fs.String("workloads", "all", "comma-separated workloads (all: every one)")
		reps     = fs.Int("reps", 3, "repetitions of each workload on each server, interleaved")
		duration = fs.Duration("duration", 10*time.Second, "measured window")
		warmup   = fs.Duration("warmup", 3*time.Second, "load before the window")
		out      = fs.String("o", "", "also write every run and the medians as JSON to this file")
		port     = fs.Int("port", 36443, "the servers' HTTPS port")
		etcdPort = fs.Int("etcd-port", 32379, "the reference etcd's client port (the peer port is the next one)")
		profiles = fs.String("profiles", "", "write a CPU profile of the server over each window into this directory (kube-apiserver's for the reference)")
		keep     = fs.Bool("keep", false, "keep the working directory (server logs) afterwards")
		only     = fs.Bool("only-portcullis", false, "measure portcullis alone (for tests)")
	)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: go run ./hack/bench [flags]\n\nworkloads:")
		for _, w := range workloads() {
			fmt.Fprintf(fs.Output(), " %s", w.name)
		}
		fmt.Fprintln(fs.Output())
		fs.VisitAll(func(f *flag.Flag) {
			if f.Name == "only-portcullis" {
				return // for the smoke test, not for users
			}
			fmt.Fprintf(fs.Output(), "  -%s\t%s (default %q)\n", f.Name, f.Usage, f.DefValue)
		})
	}
	_ = fs.Parse(os.Args[1:])

	wls, err := selectWorkloads(*names)
	if err == nil && (*reps < 1 || *duration <= 0 || *warmup < 0) {
		err = errors.New("-reps and -duration must be positive, -warmup not negative")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	refBin := ""
	if !*only {
		if refBin, err = findReference(); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
	}
	if os.Getenv(envPinned) == "" {
		if err := reexecPinned(); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return // not reached: exec replaced this process
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	tmp := os.Getenv(envTemp)
	err = bench(ctx, benchArgs{
		workloads: wls, reps: *reps, duration: *duration, warmup: *warmup, out: *out,
		port: *port, etcdPort: *etcdPort, refBin: refBin, only: *only,
		portcullisBin: os.Getenv(envPortcullis), tmp: tmp, profiles: *profiles,
	}, os.Stdout)
	if !*keep {
		_ = os.RemoveAll(tmp)
	} else {
		fmt.Fprintln(os.Stderr, "bench: logs kept in", tmp)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// findReference returns the directory of etcd and kube-apiserver.
func findReference() (string, error) {
	dir := os.Getenv("PORTCULLIS_REFERENCE_BIN")
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(cache, "portcullis-reference", "bin")
	}
	for _, b := range []string{"etcd", "kube-apiserver"} {
		if _, err := exec.LookPath(filepath.Join(dir, b)); err != nil {
			return "", fmt.Errorf("%w: %s in %s: build them once with hack/reference/build.sh (15-40 minutes on two cores), or set PORTCULLIS_REFERENCE_BIN: %w",
				errNoReference, b, dir, err)
		}
	}
	return dir, nil
}

// reexecPinned builds portcullis (with every core, before pinning) and
// replaces this process by itself under taskset -c 1, so that the load
// generator keeps off the servers' core.
func reexecPinned() error {
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		return fmt.Errorf("taskset (util-linux) is needed to pin the servers and the load: %w", err)
	}
	tmp, err := os.MkdirTemp("", "portcullis-bench-")
	if err != nil {
		return err
	}
	bin := filepath.Join(tmp, "portcullis")
	fmt.Fprintln(os.Stderr, "bench: building portcullis")
	build := exec.Command("go", "build", "-o", bin, "./cmd/portcullis")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("go build ./cmd/portcullis (run from the repository root): %w", err)
	}
	self, err := os.Executable()
	if err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	env := append(os.Environ(), envPinned+"=1", envPortcullis+"="+bin, envTemp+"="+tmp)
	argv := append([]string{"taskset", "-c", "1", self}, os.Args[1:]...)
	if err := syscall.Exec(taskset, argv, env); err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("re-executing under taskset: %w", err)
	}
	return nil
}

type benchArgs struct {
	workloads             []workload
	reps                  int
	duration, warmup      time.Duration
	out                   string
	port, etcdPort        int
	refBin, portcullisBin string
	only                  bool
	tmp                   string
	profiles              string
}

// bench makes the PKI, runs everything and prints the tables.
func bench(ctx context.Context, a benchArgs, w io.Writer) error {
	if a.portcullisBin == "" || a.tmp == "" {
		return errors.New("started without the pinned re-exec's environment")
	}
	creds, err := makeCreds(filepath.Join(a.tmp, "pki"))
	if err != nil {
		return err
	}
	cfg := config{
		workloads: a.workloads, reps: a.reps, duration: a.duration, warmup: a.warmup,
		servers: servers{creds: creds, refBin: a.refBin, portcullisBin: a.portcullisBin,
			port: a.port, etcdPort: a.etcdPort, etcdPeerPort: a.etcdPort + 1, pin: true},
		onlyPortcullis: a.only, workDir: a.tmp, profileDir: a.profiles, progress: os.Stderr,
	}
	runs, err := run(ctx, cfg)
	report := makeReport(cfg, runs)
	writeReport(w, cfg, report)
	if a.out != "" {
		b, jerr := json.MarshalIndent(report, "", "  ")
		if jerr == nil {
			jerr = os.WriteFile(a.out, append(b, '\n'), 0o644)
		}
		err = errors.Join(err, jerr)
	}
	return err
}

// report is what -o writes.
type report struct {
	Started  time.Time `json:"started"`
	Commit   string    `json:"commit,omitempty"`
	Reps     int       `json:"reps"`
	Duration string    `json:"duration"`
	Warmup   string    `json:"warmup"`
	Medians  []result  `json:"medians"`
	Runs     []result  `json:"runs"`
}

func makeReport(cfg config, runs []result) report {
	r := report{Started: time.Now(), Reps: cfg.reps, Duration: cfg.duration.String(), Warmup: cfg.warmup.String(), Runs: runs}
	// go run does not stamp the revision; ask git, as the table's reader
	// needs to know what was measured.
	if b, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		r.Commit = strings.TrimSpace(string(b))
	}
	for _, wl := range cfg.workloads {
		for _, srv := range cfg.serverOrder() {
			var mine []result
			for _, x := range runs {
				if x.Workload == wl.name && x.Server == srv {
					mine = append(mine, x)
				}
			}
			if len(mine) > 0 {
				r.Medians = append(r.Medians, medians(mine))
			}
		}
	}
	return r
}

func writeReport(w io.Writer, cfg config, r report) {
	fmt.Fprintf(w, "Commit %s. Medians of %d run(s) per server, interleaved; %s warm-up, %s measured window.\n", r.Commit, cfg.reps, cfg.warmup, cfg.duration)
	fmt.Fprintln(w, "Servers pinned to CPU 0 (kube-apiserver AND its etcd together on CPU 0), the client-go load generator to CPU 1;")
	fmt.Fprintln(w, "all clients of a run share one rest.Config and one HTTP transport (one HTTP/2 connection, more only past the server's stream limit).")
	fmt.Fprintln(w, "CPU and RSS are kube-apiserver + etcd summed for the reference. Ratio row: portcullis / reference, Nx where more is better, 1/N where less is.")
	for _, wl := range cfg.workloads {
		rows := map[string]result{}
		for _, m := range r.Medians {
			if m.Workload == wl.name {
				rows[m.Server] = m
			}
		}
		writeTable(w, wl, rows)
	}
}
