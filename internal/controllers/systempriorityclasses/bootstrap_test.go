package systempriorityclasses

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// store is a Reader and Creator over a map of priority classes.
type store map[string]*schedulingv1.PriorityClass

func (s store) Get(_ context.Context, gvr schema.GroupVersionResource, _, name string) (runtime.Object, error) {
	if pc, ok := s[name]; ok {
		return pc, nil
	}
	return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
}

func (s store) Create(_ context.Context, obj runtime.Object, manager string) (runtime.Object, error) {
	pc := obj.(*schedulingv1.PriorityClass)
	if manager != Manager {
		return nil, apierrors.NewBadRequest("manager " + manager)
	}
	s[pc.Name] = pc
	return pc, nil
}

func TestRunCreatesWhatIsMissing(t *testing.T) {
	edited := &schedulingv1.PriorityClass{Value: 2000000000, Description: "edited"}
	s := store{"system-cluster-critical": edited}
	if err := Run(context.Background(), s, s); err != nil {
		t.Fatal(err)
	}
	if s["system-cluster-critical"] != edited {
		t.Errorf("an existing class was replaced")
	}
	want := Classes()[0]
	if diff := cmp.Diff(want, s["system-node-critical"]); diff != "" {
		t.Errorf("system-node-critical (-want +got):\n%s", diff)
	}
}
