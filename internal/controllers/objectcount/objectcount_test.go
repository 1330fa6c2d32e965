package objectcount

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"

	"github.com/portcullis/portcullis/internal/objects/objectstest"
	"github.com/portcullis/portcullis/internal/storage"
)

func TestCount(t *testing.T) {
	objs := objectstest.New(t)
	ctx := context.Background()
	for _, key := range []string{
		"/registry/configmaps/a/one", "/registry/configmaps/b/two", "/registry/configmaps/b/three",
		"/registry/deployments/a/web", "/registry/events/a/e1",
	} {
		if _, err := objs.Store().Create(ctx, key, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	prom := prometheus.NewRegistry()
	p, err := New(objs.Registry(), objs.Store(), 0, prom, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	p.Count(ctx)
	want := `
# HELP apiserver_resource_objects [ALPHA] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.
# TYPE apiserver_resource_objects gauge
apiserver_resource_objects{group="",resource="configmaps"} 3
apiserver_resource_objects{group="",resource="events"} 1
apiserver_resource_objects{group="apps",resource="deployments"} 1
apiserver_resource_objects{group="rbac.authorization.k8s.io",resource="roles"} 0
`
	got, err := testutil.CollectAndFormat(p.objects, expfmt.TypeTextPlain, "apiserver_resource_objects")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(want), "\n") {
		if !strings.Contains(string(got), line+"\n") {
			t.Errorf("missing %q in\n%s", line, got)
		}
	}
	if strings.Contains(string(got), `group="events.k8s.io"`) {
		t.Errorf("events.k8s.io counted apart from core events:\n%s", got)
	}
	// A store that fails counts -1.
	p.store = failing{objs.Store()}
	p.Count(ctx)
	if v := testutil.ToFloat64(p.objects.WithLabelValues("", "configmaps")); v != -1 {
		t.Errorf("after the store closed: %v, want -1", v)
	}
}

type failing struct{ storage.Store }

func (failing) List(context.Context, string, storage.ListOptions) (storage.ListResult, error) {
	return storage.ListResult{}, errors.New("etcd is down")
}
