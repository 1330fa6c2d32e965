package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// describe renders a watch event for comparisons and messages.
func describe(e watch.Event) string {
	switch o := e.Object.(type) {
	case *corev1.ConfigMap:
		return fmt.Sprintf("%s %s v=%s rv=%s", e.Type, o.Name, o.Data["v"], o.ResourceVersion)
	case *metav1.Status:
		return fmt.Sprintf("%s %d %s: %s", e.Type, o.Code, o.Reason, o.Message)
	default:
		return fmt.Sprintf("%s %T", e.Type, e.Object)
	}
}

// nextEvent waits for the next event on w, skipping bookmarks.
func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	timeout := time.After(waitTimeout)
	for {
		select {
		case e, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed early")
			}
			if e.Type == watch.Bookmark {
				continue
			}
			return e
		case <-timeout:
			t.Fatalf("no watch event within %s", waitTimeout)
		}
	}
}

func TestClientGoWatch(t *testing.T) {
	t.Parallel()
	s := harness.Start(t, withoutRootCA) // kube-root-ca.crt would be an event in the watched namespace
	c := s.Client(t)
	ctx := context.Background()
	createNamespace(t, c, "watch")
	cms := c.CoreV1().ConfigMaps("watch")
	mk := func(name, v string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": v}}
	}

	t.Run("resumed from a resourceVersion sees exactly the later events", func(t *testing.T) {
		a, err := cms.Create(ctx, mk("a", "1"), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		start := a.ResourceVersion
		a.Data["v"] = "2"
		a, err = cms.Update(ctx, a, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := cms.Create(ctx, mk("b", "1"), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := cms.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}

		w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: start})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		want := []string{
			"MODIFIED a v=2 rv=" + a.ResourceVersion,
			"ADDED b v=1 rv=" + b.ResourceVersion,
			"DELETED a v=2",
		}
		for i, w0 := range want {
			got := describe(nextEvent(t, w))
			if !strings.HasPrefix(got, w0) {
				t.Fatalf("event %d = %q, want %q", i, got, w0)
			}
		}
		// A write after the replay arrives next: nothing else was queued.
		if _, err := cms.Create(ctx, mk("sentinel", "1"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := describe(nextEvent(t, w)); !strings.HasPrefix(got, "ADDED sentinel") {
			t.Fatalf("event after the replay = %q, want ADDED sentinel", got)
		}
	})

	t.Run("the deleted object carries the delete's resourceVersion", func(t *testing.T) {
		x, err := cms.Create(ctx, mk("x", "1"), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: x.ResourceVersion, FieldSelector: "metadata.name=x"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		if err := cms.Delete(ctx, "x", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		e := nextEvent(t, w)
		gone, ok := e.Object.(*corev1.ConfigMap)
		if e.Type != watch.Deleted || !ok {
			t.Fatalf("got %s, want DELETED x", describe(e))
		}
		if rv(t, gone.ResourceVersion) <= rv(t, x.ResourceVersion) {
			t.Errorf("DELETED event resourceVersion %s, want it past the create's %s", gone.ResourceVersion, x.ResourceVersion)
		}
	})

	// now is the namespace's current resourceVersion: a watch from it sees
	// only later changes (without one, a watch first replays every object).
	now := func(t *testing.T) string {
		t.Helper()
		list, err := cms.List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return list.ResourceVersion
	}

	t.Run("timeoutSeconds ends the watch", func(t *testing.T) {
		w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: now(t), TimeoutSeconds: ptr.To[int64](1)})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case _, ok := <-w.ResultChan():
				if !ok {
					return
				}
			case <-deadline:
				t.Fatalf("a watch with timeoutSeconds=1 still runs after 10s")
			}
		}
	})

	t.Run("bookmarks when asked", func(t *testing.T) {
		// kube-apiserver sends bookmarks about once a minute; here only check
		// that asking for them is accepted and events still flow.
		w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: now(t), AllowWatchBookmarks: true})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		if _, err := cms.Create(ctx, mk("bm", "1"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := describe(nextEvent(t, w)); !strings.HasPrefix(got, "ADDED bm") {
			t.Errorf("got %q, want ADDED bm", got)
		}
	})
}

func TestClientGoInformer(t *testing.T) {
	t.Parallel()
	s := harness.Start(t, withoutRootCA)
	c := s.Client(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	createNamespace(t, c, "inf")
	createNamespace(t, c, "elsewhere")
	cms := c.CoreV1().ConfigMaps("inf")
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "pre"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	events := make(chan string, 100)
	factory := informers.NewSharedInformerFactoryWithOptions(c, 0, informers.WithNamespace("inf"))
	informer := factory.Core().V1().ConfigMaps().Informer()
	name := func(obj any) string {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		cm := obj.(*corev1.ConfigMap)
		return cm.Name + " v=" + cm.Data["v"]
	}
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { events <- "add " + name(obj) },
		UpdateFunc: func(_, obj any) { events <- "update " + name(obj) },
		DeleteFunc: func(obj any) { events <- "delete " + name(obj) },
	}); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	defer func() {
		cancel() // Shutdown waits for the informers, which stop on ctx
		factory.Shutdown()
	}()
	syncCtx, syncCancel := context.WithTimeout(ctx, waitTimeout)
	defer syncCancel()
	for typ, ok := range factory.WaitForCacheSync(syncCtx.Done()) {
		if !ok {
			t.Fatalf("informer for %v did not sync within %s", typ, waitTimeout)
		}
	}

	expect := func(want string) {
		t.Helper()
		select {
		case got := <-events:
			if got != want {
				t.Fatalf("informer event %q, want %q", got, want)
			}
		case <-time.After(waitTimeout):
			t.Fatalf("no informer event within %s, want %q", waitTimeout, want)
		}
	}
	expect("add pre v=")

	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Data: map[string]string{"v": "1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	expect("add a v=1")
	// Another namespace is outside this informer.
	if _, err := c.CoreV1().ConfigMaps("elsewhere").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "z"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm.Data["v"] = "2"
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("update a v=2")
	if err := cms.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	expect("delete a v=2")

	lister := factory.Core().V1().ConfigMaps().Lister().ConfigMaps("inf")
	if _, err := lister.Get("a"); !apierrors.IsNotFound(err) {
		t.Errorf("the informer cache still has a: %v", err)
	}
	if _, err := lister.Get("pre"); err != nil {
		t.Errorf("the informer cache lacks pre: %v", err)
	}
	select {
	case extra := <-events:
		t.Errorf("unexpected informer event %q", extra)
	default:
	}
}

// compactionWatch starts a watch at resourceVersion and reports whether the
// server answered 410 Gone (directly or as the first event) and with what.
func compactionWatch(ctx context.Context, c kubernetes.Interface, ns, resourceVersion string) (gone bool, message string, err error) {
	w, err := c.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: resourceVersion})
	if err != nil {
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			return true, err.Error(), nil
		}
		return false, "", err
	}
	defer w.Stop()
	select {
	case e, ok := <-w.ResultChan():
		if !ok {
			return false, "", fmt.Errorf("watch closed without an event")
		}
		if st, isStatus := e.Object.(*metav1.Status); e.Type == watch.Error && isStatus {
			if st.Code == 410 {
				return true, st.Message, nil
			}
			return false, "", fmt.Errorf("watch error event %s", describe(e))
		}
		return false, "", nil // history still there
	case <-time.After(5 * time.Second):
		return false, "", fmt.Errorf("no event from a watch at resourceVersion %s", resourceVersion)
	}
}

func TestClientGoCompaction(t *testing.T) {
	t.Parallel()
	// kube-apiserver's flag: compact the store every interval.
	s := harness.Start(t, "--etcd-compaction-interval=1s")
	c := s.Client(t)
	ctx := context.Background()
	createNamespace(t, c, "compact")
	cms := c.CoreV1().ConfigMaps("compact")
	first, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "old"}, Data: map[string]string{"v": "0"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old := first.ResourceVersion

	// Keep writing so the store's revision moves past what compaction keeps.
	i := 0
	eventually(t, "a watch at a compacted resourceVersion answers 410 Gone", func() error {
		i++
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("new-%d", i)}}, metav1.CreateOptions{}); err != nil {
			return err
		}
		gone, msg, err := compactionWatch(ctx, c, "compact", old)
		if err != nil {
			return err
		}
		if !gone {
			time.Sleep(200 * time.Millisecond)
			return fmt.Errorf("resourceVersion %s is still replayable", old)
		}
		if !strings.Contains(msg, "too old resource version") {
			t.Errorf("410 message %q, want it to say \"too old resource version\"", msg)
		}
		return nil
	})

	t.Run("an exact list at a compacted resourceVersion is 410", func(t *testing.T) {
		_, err := cms.List(ctx, metav1.ListOptions{ResourceVersion: old, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
		if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
			t.Errorf("got %v, want 410 Gone (Expired)", err)
		}
	})

	t.Run("the current state is intact", func(t *testing.T) {
		got, err := cms.Get(ctx, "old", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get old after compaction: %v", err)
		}
		if got.ResourceVersion != old {
			t.Errorf("old has resourceVersion %s, want it unchanged at %s", got.ResourceVersion, old)
		}
		w, err := cms.Watch(ctx, metav1.ListOptions{}) // from now
		if err != nil {
			t.Fatalf("a watch from now after compaction: %v", err)
		}
		w.Stop()
	})
}
