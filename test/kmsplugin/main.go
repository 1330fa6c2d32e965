package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/portcullis/portcullis/internal/encryption/kmsv2/kmstest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "kmsplugin:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("kmsplugin", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "", "socket to serve on: unix:///path, a path, or @name for an abstract socket")
	control := fs.String("control-file", "", "JSON control file re-read on every call (optional)")
	keyID := fs.String("key-id", kmstest.DefaultKeyID, "initial key id")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *listen == "" {
		return errors.New("--listen is required")
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	p := kmstest.New(kmstest.Options{KeyID: *keyID, ControlFile: *control, Logger: log})
	return p.Serve(ctx, *listen)
}
