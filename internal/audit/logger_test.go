package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
)

func testEvent(id string) *auditv1.Event {
	ts := metav1.NewMicroTime(time.Date(2024, 5, 1, 10, 0, 0, 123456000, time.UTC))
	return &auditv1.Event{
		Level:      auditv1.LevelRequest,
		AuditID:    types.UID("id-" + id),
		Stage:      auditv1.StageResponseComplete,
		RequestURI: "/api/v1/namespaces/default/pods?dryRun=All",
		Verb:       "create",
		User:       authnv1.UserInfo{Username: "alice", Groups: []string{"admins"}},
		SourceIPs:  []string{"10.0.0.1"},
		UserAgent:  "kubectl/v1.37.2 <test>",
		ObjectRef:  &auditv1.ObjectReference{Resource: "pods", Namespace: "default", Name: "web", APIVersion: "v1"},
		ResponseStatus: &metav1.Status{
			Code: 201,
		},
		RequestObject:            &runtime.Unknown{Raw: []byte(`{"kind":"Pod","metadata":{"name":"web"}}`), ContentType: runtime.ContentTypeJSON},
		RequestReceivedTimestamp: ts,
		StageTimestamp:           ts,
		Annotations:              map[string]string{"authorization.k8s.io/decision": "allow"},
	}
}

// readEvents parses a log file back into events.
func readEvents(t *testing.T, data []byte) []*auditv1.Event {
	t.Helper()
	var out []*auditv1.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 8<<20)
	for sc.Scan() {
		var ev auditv1.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		out = append(out, &ev)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLoggerWritesEventLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "audit.log")
	l, err := NewLogger(LogConfig{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	in := []*auditv1.Event{testEvent("1"), testEvent("2")}
	if err := l.WriteEvents(in...); err != nil {
		t.Fatal(err)
	}
	if err := l.WriteEvents(testEvent("3")); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The wire form starts like kube-apiserver's.
	if want := `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Request","auditID":"id-1","stage":"ResponseComplete",`; !strings.HasPrefix(string(data), want) {
		t.Errorf("log starts with %.120s, want %s", data, want)
	}
	if !strings.Contains(string(data), `"requestReceivedTimestamp":"2024-05-01T10:00:00.123456Z"`) {
		t.Errorf("timestamps not in MicroTime form: %s", data)
	}
	got := readEvents(t, data)
	want := append(in, testEvent("3"))
	for _, ev := range want {
		ev.TypeMeta = metav1.TypeMeta{Kind: "Event", APIVersion: "audit.k8s.io/v1"}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("log mode = %v, want 0600", st.Mode().Perm())
	}
	if err := l.WriteEvents(testEvent("4")); !errors.Is(err, ErrLoggerClosed) {
		t.Errorf("write after Close = %v, want ErrLoggerClosed", err)
	}
}

func TestLoggerAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	for i := range 2 {
		l, err := NewLogger(LogConfig{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.WriteEvents(testEvent(fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(path)
	if n := len(readEvents(t, data)); n != 2 {
		t.Errorf("%d events after reopening, want 2", n)
	}
}

func TestNewLoggerConfigErrors(t *testing.T) {
	for name, cfg := range map[string]LogConfig{
		"empty path":       {},
		"negative size":    {Path: "x", MaxSizeMB: -1},
		"negative age":     {Path: "x", MaxAgeDays: -1},
		"negative backups": {Path: "x", MaxBackups: -1},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := NewLogger(cfg); !errors.Is(err, ErrLogConfig) {
				t.Errorf("NewLogger() error = %v, want ErrLogConfig", err)
			}
		})
	}
	t.Run("stdout", func(t *testing.T) {
		l, err := NewLogger(LogConfig{Path: "-"})
		if err != nil {
			t.Fatal(err)
		}
		if l.out != os.Stdout {
			t.Error("\"-\" does not write to stdout")
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestLoggerConcurrentWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.log")
	l, err := NewLogger(LogConfig{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if err := l.WriteEvents(testEvent(fmt.Sprintf("%d-%d", w, i))); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if n := len(readEvents(t, data)); n != writers*each {
		t.Errorf("%d events, want %d", n, writers*each)
	}
}

// bigEvent is an event of about size bytes once encoded.
func bigEvent(id string, size int) *auditv1.Event {
	ev := testEvent(id)
	ev.Annotations = map[string]string{"pad": strings.Repeat("x", size)}
	return ev
}

func TestLoggerRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	// An old backup beyond MaxAgeDays and a stranger that is not ours.
	old := filepath.Join(dir, "audit-2020-01-01T00-00-00.000.log")
	stranger := filepath.Join(dir, "audit-notatime.log")
	for _, p := range []string{old, stranger} {
		if err := os.WriteFile(p, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	l, err := NewLogger(LogConfig{Path: path, MaxSizeMB: 1, MaxAgeDays: 30, MaxBackups: 2})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	clock := base
	l.now = func() time.Time { return clock }

	const third = 300 << 10 // three events fit in 1 MiB, the fourth rotates
	for i := range 10 {
		clock = base.Add(time.Duration(i) * time.Second)
		if err := l.WriteEvents(bigEvent(fmt.Sprint(i), third)); err != nil {
			t.Fatal(err)
		}
	}
	// One event larger than the limit is written alone, not dropped.
	clock = base.Add(10 * time.Second)
	if err := l.WriteEvents(bigEvent("huge", 3<<20)); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	backups, err := filepath.Glob(filepath.Join(dir, "audit-2*.log"))
	if err != nil {
		t.Fatal(err)
	}
	wantBackups := []string{
		filepath.Join(dir, "audit-2024-05-01T10-00-09.000.log"),
		filepath.Join(dir, "audit-2024-05-01T10-00-10.000.log"),
	}
	if diff := cmp.Diff(wantBackups, backups); diff != "" {
		t.Errorf("backups (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(stranger); err != nil {
		t.Errorf("a file that is not a backup was touched: %v", err)
	}
	var ids []string
	for _, p := range append(backups, path) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Stat(p); p != path && st.Size() > 1<<20 {
			t.Errorf("%s has %d bytes, over the limit", p, st.Size())
		}
		for _, ev := range readEvents(t, data) {
			ids = append(ids, string(ev.AuditID))
		}
	}
	// 10 events, 3 per file: files [0-2] [3-5] [6-8] [9] [huge]; the two
	// newest backups and the current file survive.
	if diff := cmp.Diff([]string{"id-6", "id-7", "id-8", "id-9", "id-huge"}, ids); diff != "" {
		t.Errorf("surviving events (-want +got):\n%s", diff)
	}
}

func TestLoggerRotationSameInstant(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	l, err := NewLogger(LogConfig{Path: path, MaxSizeMB: 1})
	if err != nil {
		t.Fatal(err)
	}
	frozen := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return frozen }
	for i := range 4 {
		if err := l.WriteEvents(bigEvent(fmt.Sprint(i), 700<<10)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	backups, _ := filepath.Glob(filepath.Join(dir, "audit-*.log"))
	if len(backups) != 3 {
		t.Errorf("backups = %v, want 3 distinct files", backups)
	}
}
