package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/portcullis/portcullis/hack/internal/probe"
)

// startTimeout bounds one start; the target is 300 ms.
const startTimeout = 30 * time.Second

// startResult is what one start of the server measured.
type startResult struct {
	readyLine time.Duration // exec to the "portcullis is ready" log line
	readyz    time.Duration // exec to the first /readyz answering 200 "ok"
	rssKiB    int64         // VmRSS after the idle wait (first start only)
}

func measureStartup(ctx context.Context, bin string, runs int, idle time.Duration) error {
	if runs < 1 {
		return errors.New("-runs must be positive")
	}
	var empty, existing []startResult
	fmt.Printf("%-4s %-28s %-28s %s\n", "run", "empty dir: ready line/readyz", "existing dir: line/readyz", "idle RSS")
	for i := range runs {
		dir, err := os.MkdirTemp("", "portcullis-startup-")
		if err != nil {
			return err
		}
		first, err := startOnce(ctx, bin, dir, idle)
		var second startResult
		if err == nil {
			second, err = startOnce(ctx, bin, dir, 0)
		}
		_ = os.RemoveAll(dir)
		if err != nil {
			return fmt.Errorf("run %d: %w", i+1, err)
		}
		empty, existing = append(empty, first), append(existing, second)
		fmt.Printf("%-4d %-28s %-28s %.1f MiB\n", i+1,
			ms(first.readyLine)+" / "+ms(first.readyz), ms(second.readyLine)+" / "+ms(second.readyz), float64(first.rssKiB)/1024)
	}
	summary := func(what string, rs []startResult, pick func(startResult) time.Duration) {
		ds := make([]time.Duration, len(rs))
		for i, r := range rs {
			ds[i] = pick(r)
		}
		slices.Sort(ds)
		fmt.Printf("%-34s min %s  median %s  max %s\n", what, ms(ds[0]), ms(ds[len(ds)/2]), ms(ds[len(ds)-1]))
	}
	summary("start to /readyz, empty data dir:", empty, func(r startResult) time.Duration { return r.readyz })
	summary("start to /readyz, existing dir:", existing, func(r startResult) time.Duration { return r.readyz })
	rss := make([]int64, len(empty))
	for i, r := range empty {
		rss[i] = r.rssKiB
	}
	slices.Sort(rss)
	fmt.Printf("%-34s min %.1f MiB  median %.1f MiB  max %.1f MiB (after %s idle)\n", "idle RSS:",
		float64(rss[0])/1024, float64(rss[len(rss)/2])/1024, float64(rss[len(rss)-1])/1024, idle)
	return nil
}

// startOnce starts `bin serve` on dir, waits for /readyz, optionally reads
// the RSS after idle, and stops the server with SIGTERM.
func startOnce(ctx context.Context, bin, dir string, idle time.Duration) (startResult, error) {
	var r startResult
	ctx, cancel := context.WithTimeout(ctx, startTimeout+idle)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "serve", "--data-dir", dir, "--secure-port", "0", "--bind-address", "127.0.0.1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return r, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return r, fmt.Errorf("starting %s: %w", bin, err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	}()

	address, kubeconfig, log, err := waitReadyLine(stderr)
	if err != nil {
		return r, fmt.Errorf("%w\n%s", err, log)
	}
	r.readyLine = time.Since(start)
	go func() { _, _ = io.Copy(io.Discard, stderr) }() // keep the server from blocking on its log

	client, err := adminClient(kubeconfig)
	if err != nil {
		return r, err
	}
	for {
		if probe.Ready(ctx, client, address) {
			r.readyz = time.Since(start)
			break
		}
		if ctx.Err() != nil {
			return r, fmt.Errorf("/readyz not ok within %s: %w", startTimeout, ctx.Err())
		}
		time.Sleep(time.Millisecond)
	}
	if idle > 0 {
		time.Sleep(idle)
		if r.rssKiB, err = residentKiB(cmd.Process.Pid); err != nil {
			return r, err
		}
	}
	return r, nil
}

var (
	readyMsg   = regexp.MustCompile(`msg="portcullis is ready"`)
	addressKV  = regexp.MustCompile(`\baddress=(https://\S+)`)
	kubeconfKV = regexp.MustCompile(`\bkubeconfig=("(?:[^"\\]|\\.)*"|\S+)`)
)

// waitReadyLine reads the server's log until its ready line and returns the
// address and kubeconfig it names, or the log so far on failure.
func waitReadyLine(stderr io.Reader) (address, kubeconfig, log string, err error) {
	var seen strings.Builder
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		seen.WriteString(line + "\n")
		if !readyMsg.MatchString(line) {
			continue
		}
		a, k := addressKV.FindStringSubmatch(line), kubeconfKV.FindStringSubmatch(line)
		if a == nil || k == nil {
			return "", "", seen.String(), errors.New("the ready line lacks address or kubeconfig")
		}
		kubeconfig = k[1]
		if strings.HasPrefix(kubeconfig, `"`) {
			if kubeconfig, err = strconv.Unquote(kubeconfig); err != nil {
				return "", "", seen.String(), fmt.Errorf("kubeconfig path: %w", err)
			}
		}
		return a[1], kubeconfig, seen.String(), nil
	}
	return "", "", seen.String(), errors.New("the server exited before it was ready")
}

func adminClient(kubeconfig string) (*http.Client, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", kubeconfig, err)
	}
	return rest.HTTPClientFor(cfg)
}

// residentKiB reads VmRSS of a process from /proc (Linux only).
func residentKiB(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the server's memory use: %w", err)
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest) // "23456 kB"
			if len(f) == 2 && f[1] == "kB" {
				return strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}
