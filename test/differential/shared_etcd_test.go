package differential

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clientv3 "go.etcd.io/etcd/client/v3"
)

var sharedEtcd = flag.Bool("shared-etcd", false,
	"run kube-apiserver (hack/reference/build.sh) and portcullis on one etcd and check that each serves what the other wrote")

// sharedEncryption is the EncryptionConfiguration both servers read:
// each provider that binds the value to its etcd key, one resource each.
const sharedEncryption = `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers:
  - aesgcm: {keys: [{name: key1, secret: c2VjcmV0IGlzIHNlY3VyZSwgaXMgaXQgbm90Pz8/Pz8=}]}
- resources: [configmaps]
  providers:
  - aescbc: {keys: [{name: key1, secret: c2VjcmV0IGlzIHNlY3VyZSwgaXMgaXQgbm90Pz8/Pz8=}]}
- resources: [deployments.apps]
  providers:
  - secretbox: {keys: [{name: key1, secret: YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXoxMjM0NTY=}]}
`

// sharedObject is one object written through one server and read
// through both: where to POST it and its body (%s is a name suffix).
type sharedObject struct {
	path string // collection, e.g. /api/v1/namespaces/shared/configmaps
	body string
	// encrypted is the provider prefix its etcd value must start with.
	encrypted string
}

// sharedObjects cover a resource of each storage path shape: core and
// group resources, the ones kept under special paths (services/specs,
// minions, controllers, ingress), CRDs and their objects (JSON), and one
// encrypted resource per provider.
var sharedObjects = []sharedObject{
	{path: "/api/v1/namespaces/shared/configmaps", encrypted: "k8s:enc:aescbc:v1:key1:",
		body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c%s","labels":{"a":"b"}},"data":{"k":"v"}}`},
	{path: "/api/v1/namespaces/shared/secrets", encrypted: "k8s:enc:aesgcm:v1:key1:",
		body: `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s%s"},"stringData":{"password":"hunter2"}}`},
	{path: "/apis/apps/v1/namespaces/shared/deployments", encrypted: "k8s:enc:secretbox:v1:key1:",
		body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d%s"},"spec":{"replicas":0,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`},
	{path: "/api/v1/namespaces/shared/services",
		body: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc%s"},"spec":{"clusterIP":"None","selector":{"a":"b"},"ports":[{"port":80}]}}`},
	{path: "/api/v1/nodes",
		body: `{"apiVersion":"v1","kind":"Node","metadata":{"name":"node%s","labels":{"kubernetes.io/hostname":"n"}}}`},
	{path: "/api/v1/namespaces/shared/replicationcontrollers",
		body: `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"rc%s"},"spec":{"replicas":0,"selector":{"a":"b"},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`},
	{path: "/apis/networking.k8s.io/v1/namespaces/shared/ingresses",
		body: `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"i%s"},"spec":{"defaultBackend":{"service":{"name":"svc","port":{"number":80}}}}}`},
	{path: "/apis/batch/v1/namespaces/shared/jobs",
		body: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j%s"},"spec":{"suspend":true,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}`},
	{path: "/apis/autoscaling/v2/namespaces/shared/horizontalpodautoscalers",
		body: `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"h%s"},"spec":{"maxReplicas":3,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"}}}`},
	{path: "/apis/rbac.authorization.k8s.io/v1/namespaces/shared/roles",
		body: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"r%s"},"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]}`},
	{path: "/apis/policy/v1/namespaces/shared/poddisruptionbudgets",
		body: `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"pdb%s"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"a":"b"}}}}`},
	{path: "/apis/scheduling.k8s.io/v1/priorityclasses",
		body: `{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"pc%s"},"value":1000}`},
	{path: "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
		body: `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"vap%s"},"spec":{"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":["example.com"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["nothing"]}]},"validations":[{"expression":"true"}]}}`},
	{path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
		body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets%s.example.com"},"spec":{"group":"example.com","names":{"plural":"widgets%s","singular":"widget%s","kind":"Widget%K"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}}]}}`},
}

// TestSharedEtcd runs kube-apiserver and portcullis side by side on one
// etcd with one EncryptionConfiguration: every object either writes,
// the other reads identically, and the stored values are encrypted with
// the same providers. Opt-in with -shared-etcd: it needs the reference.
func TestSharedEtcd(t *testing.T) {
	if !*sharedEtcd {
		t.Skip("needs -shared-etcd and the reference (hack/reference/build.sh)")
	}
	s, err := parseSuite("document: config\nsetup: [{kubectl: [get, ns]}]\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Name = "shared-etcd"
	e := newEnv(t, s)
	e.writeFile(t, "encryption.yaml", sharedEncryption)
	encryption := "--encryption-provider-config=" + filepath.Join(e.dir, "encryption.yaml")
	e.suite.Flags = append(e.suite.Flags, encryption)

	etcdURL := startEtcd(t, e)
	ref, err := startKubeAPIServer(t, e, etcdURL)
	if err != nil {
		t.Fatalf("kube-apiserver: %v\n%s", err, tail(ref.log))
	}
	pc, err := startPortcullisWith(t, e, "--etcd-servers="+etcdURL)
	if err != nil {
		t.Fatalf("portcullis: %v\n%s", err, tail(pc.log))
	}
	etcd, err := clientv3.New(clientv3.Config{Endpoints: []string{etcdURL}, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer etcd.Close()
	c := e.httpClient(t, "admin")
	mustDo(t, c, http.MethodPost, ref.url+"/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shared"}}`)

	for _, dir := range []struct {
		name           string
		writer, reader *target
	}{
		{"kube-apiserver writes, portcullis reads", ref, pc},
		{"portcullis writes, kube-apiserver reads", pc, ref},
	} {
		t.Run(dir.name, func(t *testing.T) {
			suffix, kind := "-from-ref", "FromRef"
			if dir.writer == pc {
				suffix, kind = "-from-portcullis", "FromPortcullis"
			}
			for _, o := range sharedObjects {
				body := strings.NewReplacer("%s", suffix, "%K", kind).Replace(o.body)
				written := mustDo(t, c, http.MethodPost, dir.writer.url+o.path, body)
				name := written["metadata"].(map[string]any)["name"].(string)
				url := o.path + "/" + name
				// Both servers read the same object. kube-apiserver reads
				// through its watch cache, and controllers may be writing
				// its status: read both until they agree, or a minute.
				var want, got map[string]any
				deadline := time.Now().Add(time.Minute)
				for {
					want = do(t, c, http.MethodGet, dir.writer.url+url, "")
					got = do(t, c, http.MethodGet, dir.reader.url+url, "")
					if cmp.Equal(want, got) || time.Now().After(deadline) {
						break
					}
					time.Sleep(100 * time.Millisecond)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("GET %s: the reader differs from the writer (-writer +reader):\n%s", url, diff)
				}
				if o.encrypted != "" {
					checkEncrypted(t, etcd, o, name, o.encrypted)
				}
			}
			// A custom object of the CRD, stored as JSON by both.
			crdPath := "/apis/example.com/v1/namespaces/shared/widgets" + suffix
			var created map[string]any
			deadline := time.Now().Add(time.Minute)
			for {
				var code int
				created, code = doCode(t, c, http.MethodPost, dir.writer.url+crdPath, fmt.Sprintf(`{"apiVersion":"example.com/v1","kind":"Widget%s","metadata":{"name":"w"},"spec":{"size":3}}`, kind))
				if code == http.StatusCreated || time.Now().After(deadline) {
					break
				}
				time.Sleep(200 * time.Millisecond) // the CRD is not established yet
			}
			if created["metadata"] == nil {
				t.Fatalf("creating a custom object: %v", created)
			}
			deadline = time.Now().Add(time.Minute)
			for {
				got, code := doCode(t, c, http.MethodGet, dir.reader.url+crdPath+"/w", "")
				if code == http.StatusOK || time.Now().After(deadline) {
					if diff := cmp.Diff(created, got); diff != "" {
						t.Errorf("custom object: the reader differs from the writer (-writer +reader):\n%s", diff)
					}
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
		})
	}
}

// checkEncrypted reads o's value straight from etcd.
func checkEncrypted(t *testing.T, etcd *clientv3.Client, o sharedObject, name, prefix string) {
	t.Helper()
	// /api/v1/namespaces/shared/configmaps -> configmaps, shared
	parts := strings.Split(strings.Trim(o.path, "/"), "/")
	resource, ns := parts[len(parts)-1], parts[len(parts)-2]
	key := "/registry/" + resource + "/" + ns + "/" + name
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := etcd.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 || !bytes.HasPrefix(resp.Kvs[0].Value, []byte(prefix)) {
		var got []byte
		if len(resp.Kvs) == 1 {
			got = resp.Kvs[0].Value[:min(len(resp.Kvs[0].Value), 40)]
		}
		t.Errorf("etcd %s: %d values, starting %q; want one starting %q", key, len(resp.Kvs), got, prefix)
	}
}

func mustDo(t *testing.T, c *http.Client, method, url, body string) map[string]any {
	t.Helper()
	out, code := doCode(t, c, method, url, body)
	if code >= 300 {
		t.Fatalf("%s %s: %d %v", method, url, code, out)
	}
	return out
}

func do(t *testing.T, c *http.Client, method, url, body string) map[string]any {
	t.Helper()
	out, _ := doCode(t, c, method, url, body)
	return out
}

func doCode(t *testing.T, c *http.Client, method, url, body string) (map[string]any, int) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, data)
	}
	return out, resp.StatusCode
}
