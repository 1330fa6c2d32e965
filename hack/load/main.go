package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	var (
		kubeconfig = flag.String("kubeconfig", "", "admin kubeconfig of the server to load")
		clients    = flag.Int("clients", 32, "concurrent clients")
		duration   = flag.Duration("duration", 10*time.Second, "how long to run")
		op         = flag.String("op", "create", "operation: create, get, list, mixed, crds (create -objects CRDs and time until all are established and served), or replication (-objects writes on -kubeconfig's replica, timed until -peer's replica sees them)")
		peer       = flag.String("peer", "", "admin kubeconfig of another replica, for -op replication")
		objects    = flag.Int("objects", 100, "objects created beforehand for get, list and mixed; CRDs for -op crds")
		kind       = flag.String("kind", "configmaps", "objects to load: configmaps, secrets (of -size bytes, to measure encryption at rest) or widgets (a custom resource of about 30 fields and 5 CEL rules)")
		size       = flag.Int("size", 1024, "bytes of data in each secret, with -kind secrets")
		namespace  = flag.String("namespace", "", "namespace to work in (default: a new load-* namespace)")
		keep       = flag.Bool("keep", false, "keep the namespace afterwards")
		startup    = flag.String("startup", "", "measure start-up of this portcullis binary instead of load")
		runs       = flag.Int("runs", 5, "start-up runs")
		idle       = flag.Duration("idle", 2*time.Second, "wait after start before reading the resident memory")
	)
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var err error
	switch {
	case *startup != "":
		err = measureStartup(ctx, *startup, *runs, *idle)
	case *op == "replication":
		err = runReplication(ctx, *kubeconfig, *peer, *objects)
	default:
		err = runLoad(ctx, loadConfig{
			kubeconfig: *kubeconfig,
			clients:    *clients,
			duration:   *duration,
			op:         *op,
			objects:    *objects,
			namespace:  *namespace,
			keep:       *keep,
			kind:       *kind,
			size:       *size,
		})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(1)
	}
}
