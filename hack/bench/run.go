package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/portcullis/portcullis/hack/internal/latency"
)

// config is one bench run.
type config struct {
	workloads        []workload
	reps             int
	duration, warmup time.Duration
	servers          servers
	onlyPortcullis   bool
	workDir          string
	// profileDir, when set, receives a CPU profile of the server over each
	// window (/debug/pprof/profile, on by default in both servers).
	profileDir string
	progress   io.Writer
}

func (c config) serverOrder() []string {
	if c.onlyPortcullis {
		return []string{portcullis}
	}
	return []string{reference, portcullis}
}

// run measures every workload on each server reps times, interleaved, and
// returns every run.
func run(ctx context.Context, cfg config) ([]result, error) {
	var all []result
	for _, wl := range cfg.workloads {
		for rep := 1; rep <= cfg.reps; rep++ {
			for _, srv := range cfg.serverOrder() {
				dir := filepath.Join(cfg.workDir, fmt.Sprintf("%s-%s-%d", wl.name, srv, rep))
				profile := ""
				if cfg.profileDir != "" {
					profile = filepath.Join(cfg.profileDir, fmt.Sprintf("%s-%s-%d.pprof", wl.name, srv, rep))
				}
				r, err := runOnce(ctx, cfg, wl, srv, dir, profile)
				if err != nil {
					if ctx.Err() != nil {
						return all, ctx.Err()
					}
					// One failed run should not lose the others: report it
					// in the table and go on.
					r = result{Errors: 1, Failed: true, FirstError: err.Error()}
				}
				r.Workload, r.Server, r.Rep = wl.name, srv, rep
				fmt.Fprintf(cfg.progress, "%-13s %-10s rep %d: %s\n", wl.name, srv, rep, summary(r))
				all = append(all, r)
			}
		}
	}
	return all, nil
}

func summary(r result) string {
	if r.Failed {
		return "FAILED: " + r.FirstError
	}
	return fmt.Sprintf("%.0f/s p50 %.2fms p99 %.2fms cpu %.3fms/op rss %.1fMiB start %.0fms server cpu %.0f%% load cpu %.0f%% errors %d",
		r.ReqPerSec, r.P50ms, r.P99ms, r.CPUmsPerOp, r.RSSMiB, r.StartMs, r.ServerCPUPct, r.LoadCPUPct, r.Errors)
}

func runOnce(ctx context.Context, cfg config, wl workload, srv, dir, profile string) (result, error) {
	s, err := cfg.servers.start(ctx, srv, dir)
	if err != nil {
		return result{}, err
	}
	defer s.stop()
	res := result{StartMs: millis(s.start)}
	switch wl.kind {
	case kindStartup:
		return res, nil
	case kindIdle:
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(idleWait):
		}
		kib, err := s.rssKiB()
		res.RSSMiB = float64(kib) / 1024
		return res, err
	}

	rc := &rest.Config{
		Host: s.url,
		TLSClientConfig: rest.TLSClientConfig{
			CAFile: cfg.servers.creds.files.CACert, CertFile: cfg.servers.creds.files.AdminCert, KeyFile: cfg.servers.creds.files.AdminKey,
		},
		QPS:       -1, // no client-side rate limit: measure the server
		UserAgent: "portcullis-bench",
	}
	hc, err := rest.HTTPClientFor(rc)
	if err != nil {
		return res, err
	}
	defer hc.CloseIdleConnections()
	cs := make([]kubernetes.Interface, wl.clients)
	for i := range cs {
		if cs[i], err = kubernetes.NewForConfigAndClient(rc, hc); err != nil {
			return res, err
		}
	}
	if wl.kind == kindWatch {
		return measureWatch(ctx, cfg, s, cs, res, profile)
	}
	o, err := wl.prepare(ctx, cs)
	if err != nil {
		return res, fmt.Errorf("preparing: %w", err)
	}
	return measureLoad(ctx, cfg, s, cs, o, res, profile)
}

// window is the measured interval and the server's CPU time at its ends,
// read by a timer while the load runs so that neither ramp-up nor the last
// requests' tail is in it.
type window struct {
	start, end time.Time
	cpu        [2]time.Duration
	// self is this process's CPU time at the ends: a load generator near
	// 100 % of its core says the figure is the client's limit, not the
	// server's.
	self   [2]time.Duration
	rssKiB int64
	err    error
	done   chan struct{}
}

func openWindow(ctx context.Context, cfg config, s *running, profile string) *window {
	now := time.Now()
	w := &window{start: now.Add(cfg.warmup), end: now.Add(cfg.warmup + cfg.duration), done: make(chan struct{})}
	profiled := make(chan struct{})
	go func() {
		defer close(profiled)
		if profile == "" {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(w.start)):
		}
		if err := fetchProfile(ctx, cfg, s, profile); err != nil {
			fmt.Fprintf(cfg.progress, "profile %s: %v\n", filepath.Base(profile), err)
		}
	}()
	go func() {
		defer close(w.done)
		defer func() { <-profiled }()
		for i, at := range []time.Time{w.start, w.end} {
			select {
			case <-ctx.Done():
				w.err = ctx.Err()
				return
			case <-time.After(time.Until(at)):
			}
			c, err := s.cpu()
			if err == nil {
				w.self[i], err = processCPU(os.Getpid())
			}
			if err != nil {
				w.err = err
				return
			}
			w.cpu[i] = c
		}
		w.rssKiB, w.err = s.rssKiB()
	}()
	return w
}

func (w *window) contains(t time.Time) bool { return !t.Before(w.start) && !t.After(w.end) }

func (w *window) fill(res *result, lat *latencies) error {
	<-w.done
	if w.err != nil {
		return w.err
	}
	slices.Sort(lat.OK)
	secs := w.end.Sub(w.start).Seconds()
	res.Ops, res.Errors = len(lat.OK), lat.Errors
	if lat.FirstErr != nil {
		res.FirstError = lat.FirstErr.Error()
	}
	res.ReqPerSec = float64(len(lat.OK)) / secs
	res.P50ms, res.P99ms = millis(latency.Percentile(lat.OK, 50)), millis(latency.Percentile(lat.OK, 99))
	res.CPUms = millis(w.cpu[1] - w.cpu[0])
	if len(lat.OK) > 0 {
		res.CPUmsPerOp = res.CPUms / float64(len(lat.OK))
	}
	res.RSSMiB = float64(w.rssKiB) / 1024
	res.ServerCPUPct = 100 * (w.cpu[1] - w.cpu[0]).Seconds() / secs
	res.LoadCPUPct = 100 * (w.self[1] - w.self[0]).Seconds() / secs
	return nil
}

func measureLoad(ctx context.Context, cfg config, s *running, cs []kubernetes.Interface, o op, res result, profile string) (result, error) {
	w := openWindow(ctx, cfg, s, profile)
	per := make([]latencies, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Go(func() {
			for seq := 0; ctx.Err() == nil; seq++ {
				began := time.Now()
				if began.After(w.end) {
					return
				}
				err := o(ctx, c, i, seq)
				ended := time.Now()
				if w.contains(ended) && ctx.Err() == nil {
					per[i].Record(ended.Sub(began), err)
				}
			}
		})
	}
	wg.Wait()
	var lat latencies
	for i := range per {
		lat.Merge(&per[i])
	}
	return res, w.fill(&res, &lat)
}

// measureWatch starts one watcher per client on the namespace's
// ConfigMaps, then one writer creating ConfigMaps that carry the time
// before their create; a watcher's latency is from then to the event.
func measureWatch(ctx context.Context, cfg config, s *running, cs []kubernetes.Interface, res result, profile string) (result, error) {
	if err := createNamespace(ctx, cs[0]); err != nil {
		return res, err
	}
	l, err := cs[0].CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return res, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watchers := make([]watch.Interface, len(cs))
	for i, c := range cs {
		if watchers[i], err = c.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: l.ResourceVersion}); err != nil {
			for _, w := range watchers[:i] {
				w.Stop()
			}
			return res, fmt.Errorf("watch %d: %w", i, err)
		}
	}
	w := openWindow(ctx, cfg, s, profile)
	per := make([]latencies, len(cs))
	var wg sync.WaitGroup
	for i, wt := range watchers {
		wg.Go(func() {
			defer wt.Stop()
			for ev := range wt.ResultChan() {
				got := time.Now()
				if ctx.Err() != nil {
					continue // the stream ending after the window is no failure
				}
				cm, ok := ev.Object.(*corev1.ConfigMap)
				if ev.Type != watch.Added || !ok {
					if ev.Type == watch.Error {
						per[i].Record(0, fmt.Errorf("watch error: %v", ev.Object))
					}
					continue
				}
				sent, err := strconv.ParseInt(cm.Data["sent"], 10, 64)
				if err != nil {
					per[i].Record(0, fmt.Errorf("ConfigMap %s without a send time", cm.Name))
					continue
				}
				if w.contains(got) {
					per[i].Record(got.Sub(time.Unix(0, sent)), nil)
				}
			}
		})
	}
	var writes atomic.Int64
	writer := make(chan struct{})
	go func() {
		defer close(writer)
		for seq := 0; ctx.Err() == nil && time.Now().Before(w.end); seq++ {
			cm := configMap(fmt.Sprintf("w-%d", seq))
			began := time.Now()
			cm.Data["sent"] = strconv.FormatInt(began.UnixNano(), 10)
			_, err := cs[0].CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{})
			if err == nil && w.contains(time.Now()) {
				writes.Add(1)
			}
		}
	}()
	<-writer
	// The window's timer closes it; events arriving later do not count.
	select {
	case <-w.done:
	case <-ctx.Done():
	}
	cancel()
	wg.Wait()
	var lat latencies
	for i := range per {
		lat.Merge(&per[i])
	}
	if err := w.fill(&res, &lat); err != nil {
		return res, err
	}
	res.Writes = float64(writes.Load()) / w.end.Sub(w.start).Seconds()
	return res, nil
}

// fetchProfile writes the server's CPU profile over the window to path;
// for the reference it is kube-apiserver's (etcd serves none here).
func fetchProfile(ctx context.Context, cfg config, s *running, path string) error {
	secs := max(int(cfg.duration.Round(time.Second)/time.Second), 1)
	c, err := cfg.servers.creds.httpClient(time.Duration(secs)*time.Second + 30*time.Second)
	if err != nil {
		return err
	}
	defer c.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", s.url, secs), nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s", resp.Status)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return f.Close()
}
