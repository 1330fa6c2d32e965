package apfconfig

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/portcullis/portcullis/internal/controllers/controllertest"
)

func flowSchema(t *testing.T, env *controllertest.Env, name string) *flowcontrolv1.FlowSchema {
	t.Helper()
	obj, err := env.Objects.Get(context.Background(), flowSchemas, "", name)
	if err != nil {
		t.Fatal(err)
	}
	return obj.(*flowcontrolv1.FlowSchema)
}

func TestEnsure(t *testing.T) {
	env := controllertest.New(t)
	ctx := context.Background()
	c := New(env.Objects, env.API, slog.New(slog.DiscardHandler))
	if err := c.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	for gvr, want := range map[string]int{"flowschemas": 11, "prioritylevelconfigurations": 8} {
		res := flowSchemas
		if gvr != "flowschemas" {
			res = priorityLevels
		}
		list, err := env.Objects.List(ctx, res, "", labels.Everything())
		if err != nil || len(list) != want {
			t.Fatalf("%s: %d objects (%v), want %d", gvr, len(list), err, want)
		}
	}

	// A suggested schema a user changed and marked stays as they left it;
	// one still marked for automatic update gets its spec back.
	kept := flowSchema(t, env, "service-accounts")
	kept.Spec.MatchingPrecedence = 7000
	kept.Annotations[flowcontrolv1.AutoUpdateAnnotationKey] = "false"
	reverted := flowSchema(t, env, "global-default")
	reverted.Spec.MatchingPrecedence = 7001
	// Unmarked and changed since creation (generation 2): kept, and
	// marked "false".
	unmarked := flowSchema(t, env, "kube-scheduler")
	unmarked.Spec.MatchingPrecedence = 7002
	delete(unmarked.Annotations, flowcontrolv1.AutoUpdateAnnotationKey)
	for _, fs := range []*flowcontrolv1.FlowSchema{kept, reverted, unmarked} {
		if _, err := env.API.Apply(ctx, fs, "user"); err != nil {
			t.Fatal(err)
		}
	}
	// Objects the server once suggested and no longer does go; a user's
	// own stay.
	for name, annotations := range map[string]map[string]string{
		"retired": {flowcontrolv1.AutoUpdateAnnotationKey: "true"},
		"mine":    nil,
	} {
		fs := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations},
			Spec: flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "global-default"}}}
		if _, err := env.API.Create(ctx, fs, "user"); err != nil {
			t.Fatal(err)
		}
	}
	// A deleted suggested object comes back.
	if err := env.API.Remove(ctx, priorityLevels, "", "workload-low"); err != nil {
		t.Fatal(err)
	}

	if err := c.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int32{"service-accounts": 7000, "global-default": 9900, "kube-scheduler": 7002} {
		if got := flowSchema(t, env, name).Spec.MatchingPrecedence; got != want {
			t.Errorf("%s: matchingPrecedence %d, want %d", name, got, want)
		}
	}
	if got := flowSchema(t, env, "kube-scheduler").Annotations[flowcontrolv1.AutoUpdateAnnotationKey]; got != "false" {
		t.Errorf("kube-scheduler: autoupdate-spec %q, want \"false\"", got)
	}
	if _, err := env.Objects.Get(ctx, flowSchemas, "", "retired"); !apierrors.IsNotFound(err) {
		t.Errorf("retired flow schema: %v, want not found", err)
	}
	flowSchema(t, env, "mine")
	if _, err := env.Objects.Get(ctx, priorityLevels, "", "workload-low"); err != nil {
		t.Errorf("deleted suggested priority level not recreated: %v", err)
	}
}

func TestDangling(t *testing.T) {
	env := controllertest.New(t)
	ctx := context.Background()
	c := New(env.Objects, env.API, slog.New(slog.DiscardHandler))
	if err := c.Ensure(ctx); err != nil {
		t.Fatal(err)
	}
	fs := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: "orphan"},
		Spec: flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "nowhere"}}}
	if _, err := env.API.Create(ctx, fs, "user"); err != nil {
		t.Fatal(err)
	}
	controllertest.Run(t, c.Run)
	condition := func(name string, status flowcontrolv1.ConditionStatus, reason string) func() (bool, string) {
		return func() (bool, string) {
			got := conditionOf(flowSchema(t, env, name))
			if got == nil {
				return false, name + ": no Dangling condition"
			}
			return got.Status == status && got.Reason == reason, fmt.Sprintf("%s: %+v", name, *got)
		}
	}
	controllertest.Eventually(t, condition("catch-all", flowcontrolv1.ConditionFalse, "Found"))
	controllertest.Eventually(t, condition("orphan", flowcontrolv1.ConditionTrue, "NotFound"))
	if msg := conditionOf(flowSchema(t, env, "orphan")).Message; msg != `This FlowSchema references the PriorityLevelConfiguration object named "nowhere" but there is no such object` {
		t.Errorf("message %q", msg)
	}

	// The priority level appears: the schema is no longer dangling.
	pl := &flowcontrolv1.PriorityLevelConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "nowhere"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited,
			Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject}}}}
	if _, err := env.API.Create(ctx, pl, "user"); err != nil {
		t.Fatal(err)
	}
	controllertest.Eventually(t, condition("orphan", flowcontrolv1.ConditionFalse, "Found"))
}
