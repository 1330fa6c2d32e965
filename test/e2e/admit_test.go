package e2e

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// admitTimeout bounds one run of `portcullis admit` or `portcullis test`.
const admitTimeout = 2 * time.Minute

// admitState is the state both ways start from.
const admitState = "testdata/admit-state.yaml"

// admitCase is one request of TestAdmitSameDecisionsAsServe, sent to
// `portcullis serve` with client-go and to `portcullis admit` as an
// AdmissionRequest.
type admitCase struct {
	name      string
	token     string
	operation string // CREATE, UPDATE or DELETE
	dryRun    bool
	// object is the ConfigMap in namespace shop sent by a create or an
	// update; a delete names objectName.
	object     map[string]any
	objectName string
}

// decision is what both ways must agree on.
type decision struct {
	Allowed  bool
	Code     int
	Reason   string
	Message  string
	Warnings []string
	// Kind, Labels and Data are of the object answered (a ConfigMap, or
	// the Status of a delete).
	Kind   string
	Labels map[string]any
	Data   map[string]any
}

func shopConfigMap(name string, labels map[string]any, data map[string]any) map[string]any {
	md := map[string]any{"name": name, "namespace": "shop"}
	if labels != nil {
		md["labels"] = labels
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md}
	if data != nil {
		obj["data"] = data
	}
	return obj
}

// admitCases run in order; each sees what those before it wrote.
var admitCases = []admitCase{
	{name: "create allowed and mutated", token: "alice-token", operation: "CREATE",
		object: shopConfigMap("web", map[string]any{"team": "a"}, map[string]any{"k": "v"})},
	{name: "create warned", token: "alice-token", operation: "CREATE",
		object: shopConfigMap("loner", nil, nil)},
	{name: "create denied by a policy", token: "alice-token", operation: "CREATE",
		object: shopConfigMap("evil", map[string]any{"team": "a", "bad": "true"}, nil)},
	{name: "create denied by a policy with reason Forbidden", token: "alice-token", operation: "CREATE",
		object: shopConfigMap("big", map[string]any{"team": "a"}, map[string]any{"a": "1", "b": "2", "c": "3"})},
	{name: "create denied by RBAC", token: "bob-token", operation: "CREATE",
		object: shopConfigMap("bobs", map[string]any{"team": "b"}, nil)},
	{name: "dry run create", token: "alice-token", operation: "CREATE", dryRun: true,
		object: shopConfigMap("draft", map[string]any{"team": "a"}, nil)},
	{name: "create of the dry run's name", token: "alice-token", operation: "CREATE",
		object: shopConfigMap("draft", map[string]any{"team": "a"}, nil)},
	{name: "update denied by a policy", token: "alice-token", operation: "UPDATE",
		object: shopConfigMap("web", map[string]any{"team": "a", "bad": "yes"}, nil)},
	{name: "update allowed", token: "alice-token", operation: "UPDATE",
		object: shopConfigMap("web", map[string]any{"team": "b"}, map[string]any{"k": "v2"})},
	{name: "delete denied by RBAC", token: "bob-token", operation: "DELETE", objectName: "web"},
	{name: "dry run delete", token: "alice-token", operation: "DELETE", dryRun: true, objectName: "loner"},
	{name: "delete", token: "alice-token", operation: "DELETE", objectName: "loner"},
	{name: "delete of nothing", token: "alice-token", operation: "DELETE", objectName: "loner"},
}

// TestAdmitSameDecisionsAsServe runs the same requests through `portcullis
// serve` and `portcullis admit` from the same state and token file and
// compares every decision: allowed, code, reason, message, warnings and
// the object answered.
func TestAdmitSameDecisionsAsServe(t *testing.T) {
	t.Parallel()
	tokens := writeTokens(t)
	s := harness.Start(t, "--token-auth-file="+tokens)
	s.MustKubectl(t, "apply", "-f", admitState)
	admin := s.RESTConfig(t)
	ctx := context.Background()

	// Policies, bindings and the RoleBinding take effect as the server's
	// informers see them.
	eventually(t, "the state takes effect", func() error {
		bad := admitCase{token: "alice-token", operation: "CREATE", dryRun: true,
			object: shopConfigMap("probe", map[string]any{"bad": "x"}, nil)}
		if d := viaServe(ctx, t, admin, bad); d.Code != http.StatusUnprocessableEntity {
			return fmt.Errorf("the deny policy: %+v", d)
		}
		big := admitCase{token: "alice-token", operation: "CREATE", dryRun: true,
			object: shopConfigMap("probe", nil, map[string]any{"a": "1", "b": "2", "c": "3"})}
		if d := viaServe(ctx, t, admin, big); d.Reason != string(metav1.StatusReasonForbidden) {
			return fmt.Errorf("the Forbidden policy: %+v", d)
		}
		plain := admitCase{token: "alice-token", operation: "CREATE", dryRun: true, object: shopConfigMap("probe", nil, nil)}
		if d := viaServe(ctx, t, admin, plain); !d.Allowed || d.Labels["stamped"] != "yes" || len(d.Warnings) == 0 {
			return fmt.Errorf("the mutating and the warning policy: %+v", d)
		}
		return nil
	})

	var served []decision
	for _, c := range admitCases {
		served = append(served, viaServe(ctx, t, admin, c))
	}
	admitted := viaAdmit(t, tokens, admitCases)
	if len(admitted) != len(admitCases) {
		t.Fatalf("portcullis admit answered %d results for %d requests", len(admitted), len(admitCases))
	}
	for i, c := range admitCases {
		t.Run(c.name, func(t *testing.T) {
			t.Logf("serve: %+v", served[i])
			if diff := cmp.Diff(served[i], admitted[i]); diff != "" {
				t.Errorf("serve and admit disagree (-serve +admit):\n%s", diff)
			}
		})
	}
	// Both ways must also have decided as the cases mean to, or agreeing
	// would prove nothing.
	wantCodes := []int{201, 201, 422, 403, 403, 201, 201, 422, 200, 403, 200, 200, 404}
	var gotCodes []int
	for _, d := range served {
		gotCodes = append(gotCodes, d.Code)
	}
	if diff := cmp.Diff(wantCodes, gotCodes); diff != "" {
		t.Errorf("codes of serve (-want +got):\n%s", diff)
	}
	for i, want := range map[int]string{0: "yes", 1: "yes", 5: "yes", 8: ""} {
		if got, _ := served[i].Labels["stamped"].(string); got != want {
			t.Errorf("%s: label stamped %q, want %q", admitCases[i].name, got, want)
		}
	}
	if len(served[1].Warnings) == 0 {
		t.Errorf("%s: no warning", admitCases[1].name)
	}
}

// warnings collects the warnings client-go is given, for one request at
// a time.
type warnings struct {
	mu   sync.Mutex
	text []string
}

func (w *warnings) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.text = append(w.text, text)
}

// viaServe sends c to the server with client-go as c's token user.
func viaServe(ctx context.Context, t *testing.T, admin *rest.Config, c admitCase) decision {
	t.Helper()
	w := &warnings{}
	cfg := &rest.Config{
		Host:            admin.Host,
		TLSClientConfig: rest.TLSClientConfig{CAData: admin.CAData, CAFile: admin.CAFile, ServerName: admin.ServerName},
		BearerToken:     c.token,
		QPS:             -1,
		UserAgent:       "portcullis-e2e",
		WarningHandler:  w,
		ContentConfig: rest.ContentConfig{GroupVersion: &corev1.SchemeGroupVersion,
			NegotiatedSerializer: scheme.Codecs.WithoutConversion()},
		APIPath: "/api",
	}
	rc, err := rest.RESTClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	const collection = "/api/v1/namespaces/shop/configmaps"
	var req *rest.Request
	switch c.operation {
	case "CREATE":
		req = rc.Post().AbsPath(collection).Body(mustJSON(t, c.object))
	case "UPDATE":
		// As admit does, the update replaces the stored resourceVersion.
		name := c.object["metadata"].(map[string]any)["name"].(string)
		stored, err := rest.RESTClientFor(withContent(admin))
		if err != nil {
			t.Fatal(err)
		}
		var cur corev1.ConfigMap
		if err := stored.Get().AbsPath(collection, name).Do(ctx).Into(&cur); err != nil {
			t.Fatalf("%s: reading %s: %v", c.name, name, err)
		}
		obj := shopConfigMap(name, nil, nil)
		for k, v := range c.object {
			obj[k] = v
		}
		md := map[string]any{}
		for k, v := range c.object["metadata"].(map[string]any) {
			md[k] = v
		}
		md["resourceVersion"] = cur.ResourceVersion
		obj["metadata"] = md
		req = rc.Put().AbsPath(collection, name).Body(mustJSON(t, obj))
	case "DELETE":
		opts := metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "DeleteOptions"}}
		if c.dryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		req = rc.Delete().AbsPath(collection, c.objectName).Body(mustJSON(t, opts))
	default:
		t.Fatalf("%s: operation %q", c.name, c.operation)
	}
	if c.dryRun && c.operation != "DELETE" {
		req = req.Param("dryRun", metav1.DryRunAll)
	}
	res := req.SetHeader("Content-Type", "application/json").Do(ctx)
	var d decision
	res.StatusCode(&d.Code)
	body, _ := res.Raw()
	d.Allowed = d.Code >= 200 && d.Code < 300
	d.Warnings = w.text
	readBody(t, &d, body)
	return d
}

// withContent is admin with what a REST client of core/v1 needs.
func withContent(admin *rest.Config) *rest.Config {
	cfg := rest.CopyConfig(admin)
	cfg.GroupVersion = &corev1.SchemeGroupVersion
	cfg.APIPath = "/api"
	cfg.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	return cfg
}

// readBody fills d from an answer: the Status of a denial, else the
// object's kind, labels and data.
func readBody(t *testing.T, d *decision, body []byte) {
	t.Helper()
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		t.Fatalf("answer %d is not JSON: %v: %s", d.Code, err, body)
	}
	if !d.Allowed {
		var st metav1.Status
		if err := json.Unmarshal(body, &st); err != nil {
			t.Fatalf("answer %d is not a Status: %v: %s", d.Code, err, body)
		}
		d.Reason, d.Message = string(st.Reason), st.Message
		return
	}
	readObject(d, obj)
}

func readObject(d *decision, obj map[string]any) {
	d.Kind, _ = obj["kind"].(string)
	if md, ok := obj["metadata"].(map[string]any); ok {
		d.Labels, _ = md["labels"].(map[string]any)
	}
	d.Data, _ = obj["data"].(map[string]any)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// viaAdmit runs cases with `portcullis admit` over the same state and
// token file, as AdmissionRequest documents with the users' tokens.
func viaAdmit(t *testing.T, tokens string, cases []admitCase) []decision {
	t.Helper()
	var docs []string
	for _, c := range cases {
		doc := map[string]any{"apiVersion": "portcullis.dev/v1alpha1", "kind": "AdmissionRequest",
			"metadata": map[string]any{"name": c.name}, "operation": c.operation, "token": c.token, "dryRun": c.dryRun}
		if c.object != nil {
			doc["object"] = c.object
		} else {
			doc["resource"], doc["namespace"], doc["objectName"] = "configmaps", "shop", c.objectName
		}
		b, err := yaml.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	reqFile := filepath.Join(t.TempDir(), "requests.yaml")
	if err := os.WriteFile(reqFile, []byte(strings.Join(docs, "---\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runOffline(t, "admit", "-f", admitState, "--token-auth-file="+tokens, "-o", "json", reqFile)
	// Some requests are denied: exit status 1.
	if code != 1 {
		t.Fatalf("portcullis admit: exit %d, want 1\nstderr:\n%s", code, stderr)
	}
	var out struct {
		Kind  string `json:"kind"`
		Items []struct {
			Allowed bool           `json:"allowed"`
			Code    int            `json:"code"`
			Status  *metav1.Status `json:"status"`
			Object  map[string]any `json:"object"`
			Warn    []string       `json:"warnings"`
			Request string         `json:"request"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("portcullis admit -o json: %v\n%s", err, stdout)
	}
	if out.Kind != "AdmissionResultList" {
		t.Errorf("kind %q, want AdmissionResultList", out.Kind)
	}
	var ds []decision
	for _, it := range out.Items {
		d := decision{Allowed: it.Allowed, Code: it.Code, Warnings: it.Warn}
		if it.Status != nil && !it.Allowed {
			d.Reason, d.Message = string(it.Status.Reason), it.Status.Message
		}
		if it.Allowed {
			readObject(&d, it.Object)
		}
		ds = append(ds, d)
	}
	return ds
}

// runOffline runs the binary with args and returns its output and exit
// status.
func runOffline(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), admitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, harness.BuildPortcullis(t), args...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("portcullis %s: no answer within %s", strings.Join(args, " "), admitTimeout)
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("portcullis %s: %v", strings.Join(args, " "), err)
	}
	t.Logf("portcullis %s: exit %d", strings.Join(args, " "), code)
	return out.String(), errOut.String(), code
}

// junitDoc is what the tests read of a JUnit file.
type junitDoc struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Suites   []struct {
		Name  string `xml:"name,attr"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func readJUnit(t *testing.T, path string) junitDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc junitDoc
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, b)
	}
	return doc
}

// TestAdmitTestCommand runs AdmissionTest files with `portcullis test
// --junit`: a suite that passes, and one with a failing case.
func TestAdmitTestCommand(t *testing.T) {
	t.Parallel()
	t.Run("passing", func(t *testing.T) {
		junit := filepath.Join(t.TempDir(), "junit.xml")
		stdout, stderr, code := runOffline(t, "test", "--junit", junit, "testdata/admit-pass.yaml")
		if code != 0 {
			t.Fatalf("exit %d, want 0\n%s%s", code, stdout, stderr)
		}
		if !strings.Contains(stdout, "1 tests, 4 cases: 4 passed, 0 failed") {
			t.Errorf("no summary of 4 passed cases:\n%s", stdout)
		}
		doc := readJUnit(t, junit)
		if doc.Tests != 4 || doc.Failures != 0 || doc.Errors != 0 {
			t.Errorf("junit: tests %d failures %d errors %d, want 4 0 0", doc.Tests, doc.Failures, doc.Errors)
		}
	})
	t.Run("failing", func(t *testing.T) {
		junit := filepath.Join(t.TempDir(), "junit.xml")
		stdout, stderr, code := runOffline(t, "test", "--junit", junit, "testdata/admit-pass.yaml", "testdata/admit-fail.yaml")
		if code != 1 {
			t.Fatalf("exit %d, want 1\n%s%s", code, stdout, stderr)
		}
		if !strings.Contains(stdout, "FAIL admit-fail / expects bob to be allowed") {
			t.Errorf("the failing case is not reported:\n%s", stdout)
		}
		doc := readJUnit(t, junit)
		if doc.Tests != 6 || doc.Failures != 1 || doc.Errors != 0 {
			t.Errorf("junit: tests %d failures %d errors %d, want 6 1 0", doc.Tests, doc.Failures, doc.Errors)
		}
		var failed []string
		for _, s := range doc.Suites {
			for _, c := range s.Cases {
				if c.Failure != nil {
					failed = append(failed, s.Name+"/"+c.Name+": "+c.Failure.Message)
				}
			}
		}
		want := []string{`admit-fail/expects bob to be allowed: want admitted, got denied: 403 configmaps is forbidden: User "bob" cannot create resource "configmaps" in API group "" in the namespace "shop"`}
		if diff := cmp.Diff(want, failed); diff != "" {
			t.Errorf("junit failures (-want +got):\n%s", diff)
		}
	})
}

// TestAdmitConfigErrors: a flag naming a bad file is a configuration
// error, exit status 2, not a denial.
func TestAdmitConfigErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	badTokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(badTokens, []byte("only-a-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	badState := filepath.Join(dir, "state.yaml")
	if err := os.WriteFile(badState, []byte("apiVersion: v1\nkind: [unclosed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	request := filepath.Join(dir, "cm.yaml")
	if err := os.WriteFile(request, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		name string
		args []string
		// want is in stderr.
		want string
		bug  string
	}{
		{name: "admit: a malformed token file", args: []string{"admit", "--token-auth-file=" + badTokens, "--token=t", request},
			want: "--token-auth-file: token file '" + badTokens + "' must have at least 3 columns"},
		{name: "admit: a missing token file", args: []string{"admit", "--token-auth-file=" + filepath.Join(dir, "none.csv"), request},
			want: "--token-auth-file: open "},
		{name: "admit: a bad state file", args: []string{"admit", "-f", badState, request}, want: "--filename: " + badState},
		{name: "admit: a bad request file", args: []string{"admit", badState}, want: badState},
		{name: "test: a bad state file", args: []string{"test", "-f", badState, "testdata/admit-pass.yaml"}, want: "--filename: " + badState},
		{name: "test: a malformed token file", args: []string{"test", "--token-auth-file=" + badTokens, "testdata/admit-pass.yaml"},
			want: "--token-auth-file"},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			if row.bug != "" {
				t.Skip("known bug: " + row.bug)
			}
			stdout, stderr, code := runOffline(t, row.args...)
			if code != 2 {
				t.Errorf("exit %d, want 2\n%s%s", code, stdout, stderr)
			}
			if !strings.Contains(stderr, row.want) {
				t.Errorf("stderr lacks %q:\n%s", row.want, stderr)
			}
		})
	}
}
