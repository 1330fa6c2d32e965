// Command kmsplugin is a KMS v2 plugin for end-to-end tests: the
// in-process plugin of internal/encryption/kmsv2/kmstest as a real process
// on a unix socket. A test steers it while it runs through a JSON control
// file (see kmstest.Control), re-read on every call:
//
//	kmsplugin --listen unix:///tmp/kms/p.sock --control-file /tmp/kms/control.json --key-id key-1
//
// It logs to stderr, including a "kmstest: serving" line once the socket
// listens, and exits 0 on SIGTERM or SIGINT after letting calls in flight
// finish. It is not shipped.
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
