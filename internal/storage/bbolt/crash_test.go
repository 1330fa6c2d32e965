package bbolt

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/portcullis/portcullis/internal/storage"
)

// crashEnv, when set, turns TestCrash into the child that writes to the
// store named by its value until it is killed.
const crashEnv = "PORTCULLIS_BBOLT_CRASH_DB"

// TestCrash kills a writing process with SIGKILL several times and checks
// after each that every write it acknowledged is in the file and that the
// file is consistent. The child compacts continuously, so kills also land
// inside compactions.
func TestCrash(t *testing.T) {
	if path := os.Getenv(crashEnv); path != "" {
		crashChild(path)
		return
	}
	if testing.Short() {
		t.Skip("starts child processes")
	}
	path := filepath.Join(t.TempDir(), "store.db")
	acked := map[string]ack{}
	var maxRev int64
	for round := range 3 {
		for key, a := range runCrashChild(t, path, round) {
			if a.rev > acked[key].rev {
				acked[key] = a
			}
			maxRev = max(maxRev, a.rev)
		}
		s, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		if err := s.Check(); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if cur, _, _ := s.Revision(context.Background()); cur < maxRev {
			t.Fatalf("round %d: current revision %d < acknowledged %d", round, cur, maxRev)
		}
		for key, a := range acked {
			kv, err := s.Get(context.Background(), key)
			if err != nil {
				t.Fatalf("round %d: acknowledged %s@%d: %v", round, key, a.rev, err)
			}
			// Later writes to the same key may have landed unacknowledged.
			if kv.ModRevision < a.rev || atoi(kv.Value) < a.seq {
				t.Fatalf("round %d: %s is %s@%d, acknowledged %d@%d", round, key, kv.Value, kv.ModRevision, a.seq, a.rev)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d keys verified, last acknowledged revision %d", len(acked), maxRev)
}

type ack struct {
	rev int64
	seq int
}

// runCrashChild starts a child writing to path, kills it once it has
// acknowledged enough writes, and returns what it acknowledged per key.
func runCrashChild(t *testing.T, path string, round int) map[string]ack {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrash$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashEnv+"="+path, fmt.Sprintf("PORTCULLIS_BBOLT_CRASH_ROUND=%d", round))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acks := map[string]ack{}
	lines := bufio.NewScanner(out)
	killed := false
	deadline := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	// Kill at a different point each round.
	killAfter := 300 + 250*round
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) != 3 {
			continue // not ours: the test framework's output
		}
		rev, _ := strconv.ParseInt(f[1], 10, 64)
		seq, _ := strconv.Atoi(f[2])
		acks[f[0]] = ack{rev: rev, seq: seq}
		if !killed && len(acks) >= killAfter {
			// Lines already in the pipe were acknowledged too: keep reading.
			cmd.Process.Kill()
			killed = true
		}
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if !killed || !errors.As(err, &exit) {
		t.Fatalf("child ended on its own: %v", err)
	}
	return acks
}

// crashChild writes until killed: creates of fresh keys and guarded updates
// of one counter key per writer, printing "key revision sequence" for each
// acknowledged write.
func crashChild(path string) {
	round := os.Getenv("PORTCULLIS_BBOLT_CRASH_ROUND")
	s, err := Open(path, Options{CompactInterval: 5 * time.Millisecond, CompactRetainRevisions: 100})
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		os.Exit(2)
	}
	var mu sync.Mutex
	report := func(key string, rev int64, seq int) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(os.Stdout, "%s %d %d\n", key, rev, seq)
	}
	ctx := context.Background()
	for w := range 16 {
		go func() {
			counter := fmt.Sprintf("/crash/counter/r%s-w%02d", round, w)
			kv, err := s.Create(ctx, counter, []byte("0"))
			for seq := 1; err == nil; seq++ {
				report(counter, kv.ModRevision, seq-1)
				key := fmt.Sprintf("/crash/keys/r%s-w%02d-%06d", round, w, seq)
				var created storage.KeyValue
				if created, err = s.Create(ctx, key, []byte(strconv.Itoa(seq))); err != nil {
					break
				}
				report(key, created.ModRevision, seq)
				kv, err = s.Update(ctx, counter, []byte(strconv.Itoa(seq)), kv.ModRevision)
			}
			fmt.Fprintln(os.Stderr, "crash child:", err)
			os.Exit(2)
		}()
	}
	time.Sleep(30 * time.Second) // the parent kills us long before
	os.Exit(3)
}

func atoi(b []byte) int {
	n, _ := strconv.Atoi(string(b))
	return n
}
