package admission

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
)

// Writer is the API's own write path (the REST handlers' in-process
// client): defaults, admission, validation and field managers, as a
// client's write.
type Writer interface {
	Create(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
	ApplyStatus(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error)
}

// Loopback is the write path for the plugins that write while they
// admit (ResourceQuota records usage in a quota's status,
// NamespaceAutoProvision creates a namespace), as kube-apiserver's plugins
// write through its loopback client. The REST handlers need the admission
// chain, so the chain is built first with an unconnected Loopback and the
// server connects it to the handlers before it serves a request; a write
// made before that waits for it (or for its context).
type Loopback struct {
	once      sync.Once
	connected chan struct{}
	w         Writer
}

// NewLoopback returns a Loopback to connect later.
func NewLoopback() *Loopback { return &Loopback{connected: make(chan struct{})} }

// Connect makes w the write path; only the first call counts.
func (l *Loopback) Connect(w Writer) {
	l.once.Do(func() {
		l.w = w
		close(l.connected)
	})
}

func (l *Loopback) writer(ctx context.Context) (Writer, error) {
	select {
	case <-l.connected:
		return l.w, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Create creates obj through the API.
func (l *Loopback) Create(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	w, err := l.writer(ctx)
	if err != nil {
		return nil, err
	}
	return w.Create(ctx, obj, manager)
}

// ApplyStatus writes obj's status through the API, guarded by its
// resourceVersion.
func (l *Loopback) ApplyStatus(ctx context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	w, err := l.writer(ctx)
	if err != nil {
		return nil, err
	}
	return w.ApplyStatus(ctx, obj, manager)
}
