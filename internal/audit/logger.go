package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

// Sink receives audit events stage by stage. WriteEvents must finish with
// the events before it returns: the caller reuses them. An error means the
// events were not stored.
type Sink interface {
	WriteEvents(events ...*auditv1.Event) error
}

// SinkFunc adapts a function to Sink.
type SinkFunc func(events ...*auditv1.Event) error

// WriteEvents calls f.
func (f SinkFunc) WriteEvents(events ...*auditv1.Event) error { return f(events...) }

// LogConfig configures a Logger with kube-apiserver's --audit-log-* flags.
type LogConfig struct {
	// Path is the file to append to; "-" means standard output.
	Path string
	// MaxSizeMB is the size in megabytes at which the file is rotated;
	// 0 disables rotation.
	MaxSizeMB int
	// MaxAgeDays removes rotated files older than this many days, going by
	// the time in their name; 0 keeps them regardless of age.
	MaxAgeDays int
	// MaxBackups is how many rotated files to keep; 0 keeps all.
	MaxBackups int
}

// Logger is the Sink that writes each event as one line of audit.k8s.io/v1
// JSON, like kube-apiserver's log backend in json format. The events of one
// WriteEvents call go out in a single write. Safe for concurrent use.
type Logger struct {
	mu     sync.Mutex
	cfg    LogConfig
	out    io.Writer
	file   *os.File // nil for stdout
	size   int64    // bytes in file
	buf    bytes.Buffer
	enc    *json.Encoder
	closed bool
	now    func() time.Time // for rotation names; replaced in tests
}

// NewLogger opens (creating it and its directory, mode 0600) the log file.
func NewLogger(cfg LogConfig) (*Logger, error) {
	if cfg.Path == "" {
		return nil, fmt.Errorf("%w: path is empty", ErrLogConfig)
	}
	if cfg.MaxSizeMB < 0 || cfg.MaxAgeDays < 0 || cfg.MaxBackups < 0 {
		return nil, fmt.Errorf("%w: maxsize, maxage and maxbackup must not be negative", ErrLogConfig)
	}
	l := &Logger{cfg: cfg, now: time.Now}
	l.enc = json.NewEncoder(&l.buf)
	if cfg.Path == "-" {
		l.out = os.Stdout
		return l, nil
	}
	if err := os.MkdirAll(filepath.Dir(cfg.Path), 0o700); err != nil {
		return nil, fmt.Errorf("audit: creating log directory: %w", err)
	}
	if err := l.openFile(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *Logger) openFile() error {
	f, err := os.OpenFile(l.cfg.Path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("audit: opening log: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("audit: opening log: %w", err)
	}
	l.file, l.out, l.size = f, f, st.Size()
	return nil
}

var eventAPIVersion = auditv1.SchemeGroupVersion.String()

// WriteEvents encodes the events and appends them to the log in one write,
// rotating the file first if they would take it past MaxSizeMB.
func (l *Logger) WriteEvents(events ...*auditv1.Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrLoggerClosed
	}
	l.buf.Reset()
	for _, ev := range events {
		e := *ev
		e.Kind, e.APIVersion = "Event", eventAPIVersion
		if err := l.enc.Encode(&e); err != nil {
			return fmt.Errorf("audit: encoding event %s: %w", ev.AuditID, err)
		}
	}
	if err := l.maybeRotate(int64(l.buf.Len())); err != nil {
		return err
	}
	n, err := l.out.Write(l.buf.Bytes())
	l.size += int64(n)
	if err != nil {
		return fmt.Errorf("audit: writing log: %w", err)
	}
	// Do not keep a huge buffer alive because of one huge event.
	if l.buf.Cap() > 1<<20 {
		l.buf = bytes.Buffer{}
	}
	return nil
}

// Close closes the file; every event is out by the time WriteEvents
// returns, so there is nothing left to flush. Later writes fail with
// ErrLoggerClosed.
func (l *Logger) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if l.file == nil {
		return nil
	}
	if err := l.file.Close(); err != nil {
		return fmt.Errorf("audit: closing log: %w", err)
	}
	return nil
}
