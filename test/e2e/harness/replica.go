package harness

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// StartReplica runs another `portcullis serve` beside of, as Start does
// (same binary, a free port, stopped when the test ends), on a new data
// directory whose pki/ is a copy of of's. The replica therefore shares
// of's CA, admin identity and service account keys: pki.Ensure keeps
// existing files, so the admin kubeconfig it writes for its own URL
// authenticates on every replica, and a token either one issues
// verifies on the other. The args are the replica's own; pass the store
// flags (--etcd-servers) again, since replicas share state only through
// etcd.
func StartReplica(t testing.TB, of *Server, args ...string) *Server {
	t.Helper()
	s := newServer(t, args)
	if err := copyDir(filepath.Join(of.DataDir, "pki"), filepath.Join(s.DataDir, "pki")); err != nil {
		t.Fatalf("copying %s's key material: %v", of.DataDir, err)
	}
	s.start()
	return s
}

// copyDir copies the regular files of src (one level, as pki/ holds)
// into dst with their permissions; private keys stay 0600.
func copyDir(src, dst string) error {
	entries, err := os.ReadDir(src)
	if err != nil {
		return fmt.Errorf("reading %s: %w", src, err)
	}
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", dst, err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name(), err)
		}
		if err := copyFile(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()), info.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("opening %s: %w", src, err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("creating %s: %w", dst, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copying %s: %w", src, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", dst, err)
	}
	return nil
}
