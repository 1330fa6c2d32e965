package admission

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

type recordingWriter struct{ created []string }

func (w *recordingWriter) Create(_ context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	w.created = append(w.created, manager)
	return obj, nil
}

func (w *recordingWriter) ApplyStatus(_ context.Context, obj runtime.Object, _ string) (runtime.Object, error) {
	return obj, nil
}

func TestLoopbackWaitsForConnect(t *testing.T) {
	l := NewLoopback()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Create(ctx, &corev1.Namespace{}, "m"); !errors.Is(err, context.Canceled) {
		t.Fatalf("unconnected write with a done context: %v, want context.Canceled", err)
	}
	w := &recordingWriter{}
	done := make(chan error)
	go func() {
		_, err := l.Create(context.Background(), &corev1.Namespace{}, "first")
		done <- err
	}()
	l.Connect(w)
	l.Connect(&recordingWriter{}) // ignored
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, err := l.Create(context.Background(), &corev1.Namespace{}, "second"); err != nil {
		t.Fatal(err)
	}
	if len(w.created) != 2 {
		t.Errorf("writes reached %v, want the first connected writer twice", w.created)
	}
}
