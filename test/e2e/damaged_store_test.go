package e2e

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// TestDamagedStore damages the data file of a stopped server in one way per
// case and expects `portcullis serve` to exit with an error that names the
// file and the damage: no panic, no SIGBUS, no empty store in its place.
// The intact file then serves again.
func TestDamagedStore(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	s.Stop()
	db := filepath.Join(s.DataDir, "db", "portcullis.db")
	good, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	page := int64(os.Getpagesize())
	// bbolt grows the file ahead of its data: cut into the pages in use, as
	// the newer meta page counts them (txid at 48, pages at 40 of the meta).
	newer := good[16:]
	if m1 := good[page+16:]; binary.NativeEndian.Uint64(m1[48:]) > binary.NativeEndian.Uint64(newer[48:]) {
		newer = m1
	}
	inUse := int64(binary.NativeEndian.Uint64(newer[40:])) * page
	garbage := func(n int64) []byte {
		r := rand.New(rand.NewPCG(19, 19))
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	tests := []struct {
		name   string
		damage func() []byte
		says   string
	}{
		{"truncated", func() []byte { return good[:inUse/2] }, "damaged file: truncated"},
		{"zero bytes", func() []byte { return nil }, "empty file: 0 bytes"},
		{"not bbolt", func() []byte { return []byte("apiVersion: v1\nkind: List\n") }, "not a bbolt file"},
		{"meta pages overwritten", func() []byte {
			return append(garbage(2*page), good[2*page:]...)
		}, "both meta pages are unreadable"},
		{"data pages overwritten", func() []byte {
			return append(bytes.Clone(good[:2*page]), garbage(int64(len(good))-2*page)...)
		}, "damaged file: page"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(db, tc.damage(), 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, harness.BuildPortcullis(t), "serve",
				"--data-dir", s.DataDir, "--secure-port", "0", "--bind-address", "127.0.0.1")
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() <= 0 {
				t.Fatalf("serve on a damaged store: %v, want a non-zero exit\n%s", err, out)
			}
			for _, bad := range []string{"panic", "SIGBUS", "goroutine "} {
				if bytes.Contains(out, []byte(bad)) {
					t.Fatalf("serve crashed (%q in its output):\n%s", bad, out)
				}
			}
			if !bytes.Contains(out, []byte(db)) || !bytes.Contains(out, []byte(tc.says)) {
				t.Fatalf("serve said\n%s\nwant it to name %s and say %q", out, db, tc.says)
			}
			if i := bytes.LastIndex(out, []byte("Error:")); i >= 0 {
				t.Logf("%s", strings.TrimSpace(string(out[i:])))
			}
		})
	}
	if err := os.WriteFile(db, good, 0o600); err != nil {
		t.Fatal(err)
	}
	s.Restart()
}
