package e2e

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// rv parses a resourceVersion; portcullis uses the store revision, a number.
func rv(t *testing.T, resourceVersion string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(resourceVersion, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q is not a revision: %v", resourceVersion, err)
	}
	return n
}

func TestClientGoConfigMaps(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	createNamespace(t, c, "crud")
	cms := c.CoreV1().ConfigMaps("crud")

	var created *corev1.ConfigMap
	step(t, "create", func(t *testing.T) {
		var err error
		created, err = cms.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "one", Labels: map[string]string{"app": "x"}},
			Data:       map[string]string{"k": "v"},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if created.UID == "" || created.CreationTimestamp.IsZero() || rv(t, created.ResourceVersion) <= 0 {
			t.Errorf("server-set metadata: uid %q creationTimestamp %v resourceVersion %q", created.UID, created.CreationTimestamp, created.ResourceVersion)
		}
		// kube-apiserver names the manager after the user agent's first word.
		if len(created.ManagedFields) != 1 || created.ManagedFields[0].Manager != "portcullis-e2e" || created.ManagedFields[0].Operation != metav1.ManagedFieldsOperationUpdate {
			t.Errorf("managedFields = %+v, want one Update entry by portcullis-e2e", created.ManagedFields)
		}
	})

	step(t, "get", func(t *testing.T) {
		got, err := cms.Get(ctx, "one", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.UID != created.UID || got.ResourceVersion != created.ResourceVersion || got.Data["k"] != "v" {
			t.Errorf("get = %+v, want what create returned", got.ObjectMeta)
		}
	})

	var updated *corev1.ConfigMap
	step(t, "update", func(t *testing.T) {
		cm := created.DeepCopy()
		cm.Data["k"] = "w"
		var err error
		updated, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if rv(t, updated.ResourceVersion) <= rv(t, created.ResourceVersion) {
			t.Errorf("resourceVersion %s did not grow past %s", updated.ResourceVersion, created.ResourceVersion)
		}
		if updated.UID != created.UID || !updated.CreationTimestamp.Equal(&created.CreationTimestamp) {
			t.Errorf("update changed uid or creationTimestamp")
		}
	})

	t.Run("a stale update is a conflict", func(t *testing.T) {
		cm := created.DeepCopy() // still at the first resourceVersion
		cm.Data["k"] = "stale"
		_, err := cms.Update(ctx, cm, metav1.UpdateOptions{})
		if !apierrors.IsConflict(err) {
			t.Fatalf("stale update: %v, want 409 Conflict", err)
		}
		want := `Operation cannot be fulfilled on configmaps "one": the object has been modified; please apply your changes to the latest version and try again`
		if err.Error() != want {
			t.Errorf("message %q, want %q", err.Error(), want)
		}
	})

	t.Run("an update without resourceVersion is unconditional", func(t *testing.T) {
		cm := updated.DeepCopy()
		cm.ResourceVersion = ""
		cm.Data["k"] = "forced"
		if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("update without resourceVersion: %v", err)
		}
	})

	t.Run("generateName", func(t *testing.T) {
		cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(cm.Name, "gen-") || len(cm.Name) <= len("gen-") || cm.GenerateName != "gen-" {
			t.Errorf("name %q generateName %q", cm.Name, cm.GenerateName)
		}
	})

	t.Run("dry run create", func(t *testing.T) {
		cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dry"}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil {
			t.Fatal(err)
		}
		if cm.Name != "dry" {
			t.Errorf("dry-run create returned %q", cm.Name)
		}
		if _, err := cms.Get(ctx, "dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("get after dry run: %v, want NotFound", err)
		}
	})

	t.Run("a create in use is AlreadyExists", func(t *testing.T) {
		_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "one"}}, metav1.CreateOptions{})
		if !apierrors.IsAlreadyExists(err) || err.Error() != `configmaps "one" already exists` {
			t.Errorf("got %v, want AlreadyExists: configmaps \"one\" already exists", err)
		}
	})

	t.Run("delete with a wrong UID precondition is a conflict", func(t *testing.T) {
		err := cms.Delete(ctx, "one", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr.To(types.UID("not-the-uid"))}})
		if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), "the UID in the precondition (not-the-uid) does not match the UID in record") {
			t.Errorf("got %v, want 409 Conflict: the UID in the precondition (not-the-uid) does not match ...", err)
		}
	})

	step(t, "delete", func(t *testing.T) {
		if err := cms.Delete(ctx, "one", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &created.UID}}); err != nil {
			t.Fatal(err)
		}
		_, err := cms.Get(ctx, "one", metav1.GetOptions{})
		if !apierrors.IsNotFound(err) || err.Error() != `configmaps "one" not found` {
			t.Errorf("get after delete: %v, want NotFound: configmaps \"one\" not found", err)
		}
	})
}

func TestClientGoList(t *testing.T) {
	t.Parallel()
	s := harness.Start(t, withoutRootCA)
	c := s.Client(t)
	ctx := context.Background()
	createNamespace(t, c, "list")
	cms := c.CoreV1().ConfigMaps("list")
	var revisions []string
	for i := range 7 {
		cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Name:   fmt.Sprintf("cm-%d", i),
			Labels: map[string]string{"parity": []string{"even", "odd"}[i%2]},
		}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		revisions = append(revisions, cm.ResourceVersion)
	}
	listNames := func(t *testing.T, opts metav1.ListOptions) []string {
		t.Helper()
		list, err := cms.List(ctx, opts)
		if err != nil {
			t.Fatalf("list %+v: %v", opts, err)
		}
		return names(list.Items)
	}

	tests := []struct {
		name string
		opts metav1.ListOptions
		want []string
	}{
		{"all", metav1.ListOptions{}, []string{"cm-0", "cm-1", "cm-2", "cm-3", "cm-4", "cm-5", "cm-6"}},
		{"label selector", metav1.ListOptions{LabelSelector: "parity=odd"}, []string{"cm-1", "cm-3", "cm-5"}},
		{"set-based selector", metav1.ListOptions{LabelSelector: "parity notin (odd)"}, []string{"cm-0", "cm-2", "cm-4", "cm-6"}},
		{"field selector on the name", metav1.ListOptions{FieldSelector: "metadata.name=cm-4"}, []string{"cm-4"}},
		{"field selector excluding a name", metav1.ListOptions{FieldSelector: "metadata.name!=cm-4", LabelSelector: "parity=even"}, []string{"cm-0", "cm-2", "cm-6"}},
		{"exact revision", metav1.ListOptions{ResourceVersion: revisions[2], ResourceVersionMatch: metav1.ResourceVersionMatchExact}, []string{"cm-0", "cm-1", "cm-2"}},
		{"not older than", metav1.ListOptions{ResourceVersion: revisions[2], ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}, []string{"cm-0", "cm-1", "cm-2", "cm-3", "cm-4", "cm-5", "cm-6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := listNames(t, tt.opts); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}

	t.Run("limit and continue", func(t *testing.T) {
		var got []string
		opts := metav1.ListOptions{Limit: 3}
		for page := 0; ; page++ {
			list, err := cms.List(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Items) > 3 {
				t.Fatalf("page %d has %d items, limit 3", page, len(list.Items))
			}
			if page == 0 && (list.RemainingItemCount == nil || *list.RemainingItemCount != 4) {
				t.Errorf("first page remainingItemCount = %v, want 4", list.RemainingItemCount)
			}
			got = append(got, names(list.Items)...)
			if list.Continue == "" {
				break
			}
			if page == 0 {
				// Later pages come from the first page's snapshot.
				if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm-late"}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			opts.Continue = list.Continue
		}
		if want := []string{"cm-0", "cm-1", "cm-2", "cm-3", "cm-4", "cm-5", "cm-6"}; !slices.Equal(got, want) {
			t.Errorf("paged list = %v, want %v", got, want)
		}
	})

	t.Run("a bad continue token", func(t *testing.T) {
		_, err := cms.List(ctx, metav1.ListOptions{Limit: 2, Continue: "not-a-token"})
		if !apierrors.IsBadRequest(err) {
			t.Errorf("got %v, want 400 BadRequest", err)
		}
	})

	t.Run("delete collection", func(t *testing.T) {
		if err := cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "parity=odd"}); err != nil {
			t.Fatal(err)
		}
		if got, want := listNames(t, metav1.ListOptions{LabelSelector: "parity"}), []string{"cm-0", "cm-2", "cm-4", "cm-6"}; !slices.Equal(got, want) {
			t.Errorf("after deleting the odd ones: %v, want %v", got, want)
		}
	})

	t.Run("pod field selectors", func(t *testing.T) {
		pods := c.CoreV1().Pods("list")
		for _, p := range []struct{ name, node string }{{"p1", "n1"}, {"p2", "n2"}, {"p3", ""}} {
			pod := &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: p.name},
				Spec:       corev1.PodSpec{NodeName: p.node, Containers: []corev1.Container{{Name: "c", Image: "img"}}},
			}
			if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		p1, err := pods.Get(ctx, "p1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p1.Status.Phase = corev1.PodRunning
		if _, err := pods.UpdateStatus(ctx, p1, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			selector string
			want     []string
		}{
			{"spec.nodeName=n2", []string{"p2"}},
			{"spec.nodeName=", []string{"p3"}},
			{"status.phase=Running", []string{"p1"}},
			{"status.phase=Pending", []string{"p2", "p3"}},
		} {
			list, err := pods.List(ctx, metav1.ListOptions{FieldSelector: tt.selector})
			if err != nil {
				t.Errorf("%s: %v", tt.selector, err)
				continue
			}
			var got []string
			for _, p := range list.Items {
				got = append(got, p.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("%s: got %v, want %v", tt.selector, got, tt.want)
			}
		}
	})
}

func TestClientGoSubresources(t *testing.T) {
	t.Parallel()
	s := harness.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	createNamespace(t, c, "sub")

	t.Run("generation follows spec changes", func(t *testing.T) {
		deps := c.AppsV1().Deployments("sub")
		d, err := deps.Create(ctx, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "d"},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](1),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img:1"}}},
				},
			},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		expectGeneration := func(what string, want int64) {
			t.Helper()
			if d.Generation != want {
				t.Errorf("after %s: generation %d, want %d", what, d.Generation, want)
			}
		}
		expectGeneration("create", 1)
		d.Spec.Template.Spec.Containers[0].Image = "img:2"
		if d, err = deps.Update(ctx, d, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		expectGeneration("a spec change", 2)
		d.Labels = map[string]string{"touched": "yes"}
		if d, err = deps.Update(ctx, d, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		expectGeneration("a label change", 2)

		scale, err := deps.GetScale(ctx, "d", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get scale: %v", err)
		}
		if scale.Spec.Replicas != 1 || scale.Name != "d" {
			t.Errorf("scale = %+v, want d with 1 replica", scale)
		}
		if _, err := deps.UpdateScale(ctx, "d", &autoscalingv1.Scale{
			ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "sub", ResourceVersion: scale.ResourceVersion},
			Spec:       autoscalingv1.ScaleSpec{Replicas: 4},
		}, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("update scale: %v", err)
		}
		if d, err = deps.Get(ctx, "d", metav1.GetOptions{}); err != nil {
			t.Fatal(err)
		}
		if *d.Spec.Replicas != 4 {
			t.Errorf("replicas after scaling = %d, want 4", *d.Spec.Replicas)
		}
		expectGeneration("scaling", 3)
	})

	t.Run("status is written only through the status subresource", func(t *testing.T) {
		pods := c.CoreV1().Pods("sub")
		pod, err := pods.Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p"},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img"}}},
			Status:     corev1.PodStatus{Phase: corev1.PodSucceeded},
		}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if pod.Status.Phase != corev1.PodPending {
			t.Errorf("created pod phase %q, want Pending (status in a create is ignored)", pod.Status.Phase)
		}
		pod.Status.Phase = corev1.PodRunning
		if pod, err = pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if pod.Status.Phase != corev1.PodRunning {
			t.Errorf("after UpdateStatus: phase %q, want Running", pod.Status.Phase)
		}
		pod.Status.Phase = corev1.PodFailed
		pod.Labels = map[string]string{"seen": "yes"}
		if pod, err = pods.Update(ctx, pod, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if pod.Status.Phase != corev1.PodRunning || pod.Labels["seen"] != "yes" {
			t.Errorf("after Update: phase %q labels %v, want Running (unchanged) and the new label", pod.Status.Phase, pod.Labels)
		}
	})
}
