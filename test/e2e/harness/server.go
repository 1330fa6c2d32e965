package harness

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	// startTimeout bounds the wait for the ready line.
	startTimeout = 30 * time.Second
	// stopTimeout bounds a graceful stop before the harness kills the server.
	stopTimeout = 20 * time.Second
)

// Server is one running (or stopped) portcullis process and its data
// directory. Stop, Kill and Restart report failures on the test that called
// Start, so call them from that test's goroutine; they are not safe for
// concurrent use.
type Server struct {
	// URL is the https address from the ready line; it changes on Restart
	// because every start picks a free port.
	URL string
	// DataDir is the server's --data-dir; it survives Restart.
	DataDir string
	// Kubeconfig is the admin kubeconfig the server wrote for URL.
	Kubeconfig string

	t        testing.TB
	bin      string
	args     []string
	cacheDir string // kubectl's discovery cache for this server
	home     string // HOME for kubectl, so no user configuration leaks in
	output   *lockedBuffer
	starts   int
	proc     *process // nil when stopped
}

// process is one run of the binary.
type process struct {
	cmd   *exec.Cmd
	ready chan readyLine // receives the parsed ready line once
	done  chan struct{}  // closed once the process is reaped
	err   error          // the exit error, valid after done
}

// Start runs `portcullis serve` on a new data directory and a free port on
// 127.0.0.1 with the extra args, and returns once the server logged that it
// is ready. The server is stopped and reaped when the test ends.
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	s := newServer(t, args)
	s.start()
	return s
}

// newServer prepares a server on a new data directory, stopped when the
// test ends.
func newServer(t testing.TB, args []string) *Server {
	s := &Server{
		DataDir:  t.TempDir(),
		t:        t,
		bin:      BuildPortcullis(t),
		args:     args,
		cacheDir: t.TempDir(),
		home:     t.TempDir(),
		output:   &lockedBuffer{},
	}
	// Registered after the TempDirs, so it runs before they are removed.
	t.Cleanup(s.cleanup)
	return s
}

// Stop sends SIGTERM and waits for the process to exit. A server that does
// not exit in time is killed; either that or an unclean exit fails the test.
func (s *Server) Stop() {
	s.t.Helper()
	p := s.proc
	if p == nil {
		return
	}
	s.proc = nil
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(stopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		s.t.Errorf("portcullis did not exit within %s of SIGTERM; killed it", stopTimeout)
		return
	}
	if p.err != nil {
		s.t.Errorf("portcullis exited uncleanly after SIGTERM: %v", p.err)
	}
}

// Kill sends SIGKILL, as a crash or power loss would, and reaps the process.
func (s *Server) Kill() {
	s.t.Helper()
	p := s.proc
	if p == nil {
		return
	}
	s.proc = nil
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Restart stops the server if it runs and starts it again on the same data
// directory and arguments. URL changes; make new clients afterwards.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.start()
}

// Running reports whether the server process is up (as far as the harness knows).
func (s *Server) Running() bool {
	if s.proc == nil {
		return false
	}
	select {
	case <-s.proc.done:
		return false
	default:
		return true
	}
}

// PID is the operating system's id of the running server, 0 when stopped.
func (s *Server) PID() int {
	if s.proc == nil {
		return 0
	}
	return s.proc.cmd.Process.Pid
}

// Output is everything the server wrote to stdout and stderr so far, over
// all its starts.
func (s *Server) Output() string { return s.output.String() }

func (s *Server) start() {
	s.t.Helper()
	s.starts++
	fmt.Fprintf(s.output, "--- start %d\n", s.starts)
	args := append([]string{"serve",
		"--data-dir", s.DataDir,
		"--secure-port", "0",
		"--bind-address", "127.0.0.1",
	}, s.args...)
	cmd := exec.Command(s.bin, args...)
	cmd.Stdout = s.output
	stderr, err := cmd.StderrPipe()
	if err != nil {
		s.t.Fatalf("portcullis stderr: %v", err)
	}
	setProcAttr(cmd)
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("starting %s: %v", s.bin, err)
	}
	p := &process{cmd: cmd, ready: make(chan readyLine, 1), done: make(chan struct{})}
	s.proc = p
	go p.run(stderr, s.output)

	select {
	case r := <-p.ready:
		s.URL, s.Kubeconfig = r.Address, r.Kubeconfig
	case <-p.done:
		s.proc = nil
		s.t.Fatalf("portcullis %s exited before it was ready: %v\n%s", strings.Join(args, " "), p.err, s.Output())
	case <-time.After(startTimeout):
		s.Kill()
		s.t.Fatalf("portcullis %s was not ready within %s\n%s", strings.Join(args, " "), startTimeout, s.Output())
	}
}

// run copies the server's stderr into out, watching for the ready line, and
// reaps the process once stderr closes (Wait must follow the last read).
func (p *process) run(stderr io.Reader, out io.Writer) {
	sc := bufio.NewScanner(stderr)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	sent := false
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(out, line)
		if sent {
			continue
		}
		if r, err := parseReadyLine(line); err == nil {
			p.ready <- r
			sent = true
		} else if errors.Is(err, errBadReadyLine) {
			fmt.Fprintf(out, "harness: %v\n", err)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(out, "harness: reading stderr: %v\n", err)
		_, _ = io.Copy(io.Discard, stderr) // keep the child from blocking on a full pipe
	}
	p.err = p.cmd.Wait()
	close(p.done)
}

func (s *Server) cleanup() {
	if s.proc != nil {
		s.Stop()
	}
	if s.t.Failed() {
		s.t.Logf("portcullis output (data dir %s):\n%s", s.DataDir, s.Output())
	}
}

// lockedBuffer collects output from several goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
