package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	boltstore "github.com/portcullis/portcullis/internal/storage/bbolt"
	"github.com/portcullis/portcullis/test/e2e/harness"
)

// acked is what the server answered for a create it acknowledged.
type acked struct {
	uid             types.UID
	resourceVersion string
}

// writeUntilKilled runs concurrent creates and SIGKILLs the server once
// killAfter of them were acknowledged, while the others are in flight. It
// returns every acknowledged create.
func writeUntilKilled(t *testing.T, s *harness.Server, c kubernetes.Interface, round, killAfter int) map[string]acked {
	t.Helper()
	const writers = 8
	var (
		mu     sync.Mutex
		acks   = map[string]acked{}
		wg     sync.WaitGroup
		enough = make(chan struct{})
		once   sync.Once
	)
	for w := range writers {
		wg.Go(func() {
			for i := 0; ; i++ {
				name := fmt.Sprintf("r%d-w%d-%d", round, w, i)
				cm, err := c.CoreV1().ConfigMaps("crash").Create(context.Background(), &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Data:       map[string]string{"i": strconv.Itoa(i)},
				}, metav1.CreateOptions{})
				if err != nil {
					return // the server is gone; nothing more is acknowledged
				}
				mu.Lock()
				acks[name] = acked{uid: cm.UID, resourceVersion: cm.ResourceVersion}
				n := len(acks)
				mu.Unlock()
				if n >= killAfter {
					once.Do(func() { close(enough) })
				}
			}
		})
	}
	select {
	case <-enough:
	case <-time.After(waitTimeout):
		t.Errorf("only %d creates acknowledged within %s", len(acks), waitTimeout)
	}
	s.Kill()
	wg.Wait()
	return acks
}

func TestCrashDuringWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts the server")
	}
	t.Parallel()
	s := harness.Start(t)
	createNamespace(t, s.Client(t), "crash")
	all := map[string]acked{}

	for round := range 2 {
		acks := writeUntilKilled(t, s, s.Client(t), round, 300)
		for name, a := range acks {
			all[name] = a
		}
		t.Logf("round %d: %d creates acknowledged before SIGKILL", round, len(acks))

		s.Restart()
		c := s.Client(t) // the address changed
		list, err := c.CoreV1().ConfigMaps("crash").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list after restart: %v", err)
		}
		stored := map[string]acked{}
		for _, cm := range list.Items {
			stored[cm.Name] = acked{uid: cm.UID, resourceVersion: cm.ResourceVersion}
		}
		var maxRV int64
		for name, want := range all {
			got, ok := stored[name]
			switch {
			case !ok:
				t.Errorf("acknowledged configmap %s is missing after the crash", name)
			case got != want:
				t.Errorf("configmap %s is %+v after the crash, acknowledged as %+v", name, got, want)
			}
			maxRV = max(maxRV, rv(t, want.resourceVersion))
		}
		// Creates in flight at the kill may or may not have landed, but no
		// more than one per writer.
		if extra := len(stored) - len(all); extra < 0 || extra > 8 {
			t.Errorf("%d configmaps stored, %d acknowledged: at most 8 unacknowledged ones may exist", len(stored), len(all))
		}
		for name := range stored {
			if _, ok := all[name]; !ok {
				all[name] = stored[name] // landed without an answer; it must survive the next crash too
			}
		}
		// The revision never goes back, even for the writes that were lost.
		cm, err := c.CoreV1().ConfigMaps("crash").Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("after-%d", round)}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create after restart: %v", err)
		}
		if rv(t, cm.ResourceVersion) <= maxRV {
			t.Errorf("create after restart got resourceVersion %s, not past the acknowledged %d", cm.ResourceVersion, maxRV)
		}
		all[cm.Name] = acked{uid: cm.UID, resourceVersion: cm.ResourceVersion}
		if t.Failed() {
			return
		}
	}

	s.Stop()
	db, err := boltstore.Open(filepath.Join(s.DataDir, "db", "portcullis.db"), boltstore.Options{})
	if err != nil {
		t.Fatalf("opening the store after the crashes: %v", err)
	}
	defer db.Close()
	if err := db.Check(); err != nil {
		t.Errorf("store consistency check: %v", err)
	}
}
