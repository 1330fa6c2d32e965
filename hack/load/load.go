package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/portcullis/portcullis/hack/internal/latency"
)

// loadConfig is what one load run does.
type loadConfig struct {
	kubeconfig string
	clients    int
	duration   time.Duration
	op         string
	objects    int
	namespace  string
	keep       bool
	// kind is what the load writes and reads: configmaps, or secrets of
	// size bytes (to measure encryption at rest).
	kind string
	size int
}

var opOrder = []string{"create", "get", "list"}

func runLoad(ctx context.Context, cfg loadConfig) error {
	if cfg.kubeconfig == "" {
		return errors.New("-kubeconfig is required (or -startup BINARY)")
	}
	if cfg.clients < 1 || cfg.duration <= 0 || cfg.objects < 1 {
		return errors.New("-clients, -duration and -objects must be positive")
	}
	switch cfg.op {
	case "create", "get", "list", "mixed", "crds":
	default:
		return fmt.Errorf("unknown -op %q: want create, get, list, mixed or crds", cfg.op)
	}
	kind, err := newKind(cfg.kind, cfg.size)
	if err != nil {
		return err
	}
	base, err := clientcmd.BuildConfigFromFlags("", cfg.kubeconfig)
	if err != nil {
		return fmt.Errorf("loading %s: %w", cfg.kubeconfig, err)
	}
	base.QPS = -1 // no client-side rate limiting: measure the server
	base.UserAgent = "portcullis-load"

	clients := make([]client, cfg.clients)
	for i := range clients {
		c := rest.CopyConfig(base)
		// A Dial function of its own keeps client-go from sharing one cached
		// transport (and its connections) between the clients.
		c.Dial = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
		if clients[i].kube, err = kubernetes.NewForConfig(c); err != nil {
			return fmt.Errorf("client %d: %w", i, err)
		}
		if clients[i].dyn, err = dynamic.NewForConfig(c); err != nil {
			return fmt.Errorf("client %d: %w", i, err)
		}
	}
	if cfg.op == "crds" {
		return runCRDs(ctx, clients, cfg.objects)
	}
	if err := kind.setup(ctx, clients[0]); err != nil {
		return err
	}

	ns, cleanup, err := prepareNamespace(ctx, clients[0], cfg)
	if err != nil {
		return err
	}
	defer cleanup()
	if cfg.op != "create" {
		if err := createObjects(ctx, clients, kind, ns, cfg.objects); err != nil {
			return err
		}
	}

	fmt.Printf("%d clients, %s, op %s, kind %s, namespace %s, server %s\n", cfg.clients, cfg.duration, cfg.op, cfg.kind, ns, base.Host)
	start := time.Now()
	deadline := start.Add(cfg.duration)
	perClient := make([]map[string]*latency.Samples, cfg.clients)
	var wg sync.WaitGroup
	for i, c := range clients {
		perClient[i] = map[string]*latency.Samples{}
		w := worker{id: i, client: c, kind: kind, ns: ns, objects: cfg.objects, op: cfg.op, stats: perClient[i],
			rand: rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))}
		wg.Go(func() { w.run(ctx, deadline) })
	}
	wg.Wait()
	elapsed := time.Since(start)

	total := map[string]*latency.Samples{}
	for _, stats := range perClient {
		for op, s := range stats {
			if total[op] == nil {
				total[op] = &latency.Samples{}
			}
			total[op].Merge(s)
		}
	}
	printStats(os.Stdout, opOrder, total, elapsed)
	return nil
}

// prepareNamespace creates the namespace to work in (unless the user named
// an existing one) and returns a func that deletes what it created.
func prepareNamespace(ctx context.Context, c client, cfg loadConfig) (string, func(), error) {
	name := cfg.namespace
	if name == "" {
		name = fmt.Sprintf("load-%d", time.Now().Unix())
	}
	_, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	created := err == nil
	if err != nil && !(cfg.namespace != "" && apierrors.IsAlreadyExists(err)) {
		return "", nil, fmt.Errorf("creating namespace %s: %w", name, err)
	}
	cleanup := func() {
		if !created || cfg.keep {
			return
		}
		// Deleting a namespace removes its contents; do not wait for it.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.kube.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			fmt.Fprintf(os.Stderr, "load: deleting namespace %s: %v\n", name, err)
		}
	}
	return name, cleanup, nil
}

// createObjects makes the ConfigMaps obj-0..obj-(n-1) that get and list read.
func createObjects(ctx context.Context, clients []client, k kind, ns string, n int) error {
	var wg sync.WaitGroup
	errs := make([]error, len(clients))
	for w, c := range clients {
		wg.Go(func() {
			for i := w; i < n; i += len(clients) {
				if err := k.create(ctx, c, ns, fmt.Sprintf("obj-%d", i), "objects"); err != nil {
					errs[w] = fmt.Errorf("creating obj-%d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// worker is one client's loop.
type worker struct {
	id      int
	client  client
	kind    kind
	ns      string
	objects int
	op      string
	stats   map[string]*latency.Samples
	rand    *rand.Rand
	created int
}

// run starts operations until the deadline; the last one runs to its end so
// that every measured operation is complete.
func (w *worker) run(ctx context.Context, deadline time.Time) {
	for ctx.Err() == nil && time.Now().Before(deadline) {
		op := w.op
		if op == "mixed" {
			switch n := w.rand.IntN(10); {
			case n == 0:
				op = "create"
			case n == 9:
				op = "list"
			default:
				op = "get"
			}
		}
		start := time.Now()
		err := w.do(ctx, op)
		elapsed := time.Since(start)
		if ctx.Err() != nil {
			return // interrupted by the user
		}
		if w.stats[op] == nil {
			w.stats[op] = &latency.Samples{}
		}
		w.stats[op].Record(elapsed, err)
	}
}

func (w *worker) do(ctx context.Context, op string) error {
	switch op {
	case "create":
		w.created++
		return w.kind.create(ctx, w.client, w.ns, fmt.Sprintf("c%d-%d", w.id, w.created), "created")
	case "get":
		return w.kind.get(ctx, w.client, w.ns, fmt.Sprintf("obj-%d", w.rand.IntN(w.objects)))
	default:
		return w.kind.list(ctx, w.client, w.ns, "set=objects")
	}
}
