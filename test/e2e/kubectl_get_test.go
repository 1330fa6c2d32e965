package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

func TestKubectlGet(t *testing.T) {
	t.Parallel()
	s := harness.Start(t, withoutRootCA)
	createNamespace(t, s.Client(t), "get")
	s.MustKubectl(t, "create", "configmap", "settings", "-n", "get", "--from-literal=color=blue", "--from-literal=size=L")

	checkObject := func(t *testing.T, cm corev1.ConfigMap) {
		t.Helper()
		if cm.APIVersion != "v1" || cm.Kind != "ConfigMap" {
			t.Errorf("apiVersion/kind = %s/%s", cm.APIVersion, cm.Kind)
		}
		if cm.Name != "settings" || cm.Namespace != "get" {
			t.Errorf("name = %s/%s", cm.Namespace, cm.Name)
		}
		if cm.UID == "" || cm.ResourceVersion == "" || cm.CreationTimestamp.IsZero() {
			t.Errorf("server-set metadata missing: uid %q resourceVersion %q creationTimestamp %v", cm.UID, cm.ResourceVersion, cm.CreationTimestamp)
		}
		if cm.Data["color"] != "blue" || cm.Data["size"] != "L" {
			t.Errorf("data = %v", cm.Data)
		}
	}

	t.Run("-o yaml", func(t *testing.T) {
		out := s.MustKubectl(t, "get", "configmap", "settings", "-n", "get", "-o", "yaml")
		var cm corev1.ConfigMap
		if err := yaml.UnmarshalStrict([]byte(out), &cm); err != nil {
			t.Fatalf("decoding:\n%s\n%v", out, err)
		}
		checkObject(t, cm)
	})

	t.Run("-o json", func(t *testing.T) {
		out := s.MustKubectl(t, "get", "configmap", "settings", "-n", "get", "-o", "json")
		var cm corev1.ConfigMap
		if err := json.Unmarshal([]byte(out), &cm); err != nil {
			t.Fatalf("decoding:\n%s\n%v", out, err)
		}
		checkObject(t, cm)
	})

	t.Run("-o json of a list", func(t *testing.T) {
		out := s.MustKubectl(t, "get", "configmaps", "-n", "get", "-o", "json")
		var list corev1.List
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatalf("decoding:\n%s\n%v", out, err)
		}
		if list.Kind != "List" || len(list.Items) != 1 {
			t.Errorf("kind %q with %d items, want List with 1", list.Kind, len(list.Items))
		}
	})

	t.Run("table", func(t *testing.T) {
		header, rows := table(t, s.MustKubectl(t, "get", "configmaps", "-n", "get"))
		if want := []string{"NAME", "DATA", "AGE"}; !slices.Equal(header, want) {
			t.Errorf("header = %q, want %q", header, want)
		}
		if r := row(t, rows, "settings"); len(r) != 3 || r[1] != "2" {
			t.Errorf("row = %q, want settings with DATA 2", r)
		}
	})

	t.Run("-o wide", func(t *testing.T) {
		s.MustKubectl(t, "run", "web", "-n", "get", "--image=nginx:1.27", "--restart=Never", "--overrides",
			`{"spec":{"nodeName":"node-1"}}`)
		header, rows := table(t, s.MustKubectl(t, "get", "pods", "-n", "get", "-o", "wide"))
		want := []string{"NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "NOMINATED NODE", "READINESS GATES"}
		if !slices.Equal(header, want) {
			t.Errorf("header = %q, want %q", header, want)
		}
		r := row(t, rows, "web")
		if len(r) != len(want) {
			t.Fatalf("row = %q, want %d cells", r, len(want))
		}
		if got := []string{r[1], r[2], r[3], r[5], r[6], r[7], r[8]}; !slices.Equal(got, []string{"0/1", "Pending", "0", "<none>", "node-1", "<none>", "<none>"}) {
			t.Errorf("row = %q, want READY 0/1 STATUS Pending RESTARTS 0 IP <none> NODE node-1", r)
		}
	})

	t.Run("-o name with a label selector", func(t *testing.T) {
		s.MustKubectl(t, "create", "configmap", "labelled", "-n", "get")
		s.MustKubectl(t, "label", "configmap", "labelled", "-n", "get", "tier=gold")
		out := s.MustKubectl(t, "get", "configmaps", "-n", "get", "-l", "tier=gold", "-o", "name")
		if got := lines(out); !slices.Equal(got, []string{"configmap/labelled"}) {
			t.Errorf("got %q, want only configmap/labelled", got)
		}
	})

	t.Run("a missing object", func(t *testing.T) {
		_, stderr, err := s.Kubectl(t, "get", "configmap", "nope", "-n", "get")
		if err == nil {
			t.Fatalf("get of a missing configmap succeeded")
		}
		if want := `Error from server (NotFound): configmaps "nope" not found`; strings.TrimSpace(stderr) != want {
			t.Errorf("stderr = %q, want %q", stderr, want)
		}
	})

	t.Run("an empty namespace", func(t *testing.T) {
		stdout, stderr, err := s.Kubectl(t, "get", "secrets", "-n", "get")
		if err != nil || stdout != "" || strings.TrimSpace(stderr) != "No resources found in get namespace." {
			t.Errorf("got err %v, stdout %q, stderr %q; want stderr \"No resources found in get namespace.\"", err, stdout, stderr)
		}
	})
}

func TestKubectlWatch(t *testing.T) {
	t.Parallel()
	s := harness.Start(t, withoutRootCA)
	createNamespace(t, s.Client(t), "watch")
	s.MustKubectl(t, "create", "configmap", "w1", "-n", "watch", "--from-literal=v=1")

	t.Run("a namespace with events", func(t *testing.T) {
		w := startKubectl(t, s, "get", "configmaps", "-n", "watch", "-w", "--output-watch-events")
		expect := func(want ...string) {
			t.Helper()
			got := columnGap.Split(strings.TrimSpace(w.next(t)), -1)
			if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
				t.Fatalf("watch line %q, want it to start with %q", got, want)
			}
		}
		expect("EVENT", "NAME", "DATA", "AGE")
		expect("ADDED", "w1", "1")
		s.MustKubectl(t, "create", "configmap", "w2", "-n", "watch", "--from-literal=a=1", "--from-literal=b=2")
		expect("ADDED", "w2", "2")
		s.MustKubectl(t, "patch", "configmap", "w1", "-n", "watch", "--type=merge", "-p", `{"data":{"extra":"x"}}`)
		expect("MODIFIED", "w1", "2")
		s.MustKubectl(t, "delete", "configmap", "w2", "-n", "watch")
		expect("DELETED", "w2", "2")
		w.stop()
	})

	t.Run("one object", func(t *testing.T) {
		s.MustKubectl(t, "create", "configmap", "other", "-n", "watch", "--from-literal=v=a")
		w := startKubectl(t, s, "get", "configmap", "w1", "-n", "watch", "-w", "-o", `jsonpath={.data.v}{"\n"}`)
		if got := w.next(t); got != "1" {
			t.Fatalf("first line %q, want 1", got)
		}
		s.MustKubectl(t, "patch", "configmap", "w1", "-n", "watch", "--type=merge", "-p", `{"data":{"v":"2"}}`)
		if got := w.next(t); got != "2" {
			t.Fatalf("after the patch: %q, want 2", got)
		}
		// A change to another object must not reach this watch.
		s.MustKubectl(t, "patch", "configmap", "other", "-n", "watch", "--type=merge", "-p", `{"data":{"v":"b"}}`)
		s.MustKubectl(t, "patch", "configmap", "w1", "-n", "watch", "--type=merge", "-p", `{"data":{"v":"3"}}`)
		if got := w.next(t); got != "3" {
			t.Fatalf("after the second patch: %q, want 3 (and nothing from configmap other)", got)
		}
		w.stop()
	})
}
