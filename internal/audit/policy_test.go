package audit

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/request"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestParsePolicyErrors(t *testing.T) {
	const head = "apiVersion: audit.k8s.io/v1\nkind: Policy\n"
	tests := []struct {
		name    string
		in      string
		wantErr error
		wantMsg []string
	}{
		{"syntax", head + "rules: [\n", ErrPolicyDecode, nil},
		{"unknown field", head + "rules:\n- level: Metadata\n  user: [alice]\n", ErrPolicyDecode, []string{`unknown field "rules[0].user"`}},
		{"duplicate field yaml", head + "rules:\n- level: Metadata\n  level: None\n", ErrPolicyDecode, []string{"already set"}},
		{"duplicate field json", `{"apiVersion":"audit.k8s.io/v1","kind":"Policy","rules":[{"level":"Metadata","level":"None"}]}`, ErrPolicyDecode, []string{`duplicate field "rules[0].level"`}},
		{"field name case", head + "Rules:\n- level: Metadata\n", ErrPolicyDecode, []string{`unknown field "Rules"`}},
		{"v1beta1", "apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: Metadata\n", ErrPolicyDecode, []string{`unsupported apiVersion "audit.k8s.io/v1beta1", want audit.k8s.io/v1`}},
		{"no apiVersion", "kind: Policy\nrules:\n- level: Metadata\n", ErrPolicyDecode, []string{"apiVersion is missing"}},
		{"wrong kind", "apiVersion: audit.k8s.io/v1\nkind: Event\nrules:\n- level: Metadata\n", ErrPolicyDecode, []string{`expected kind Policy, got "Event"`}},
		{"not an object", "- a\n- b\n", ErrPolicyDecode, nil},
		{"empty", "", ErrPolicyDecode, []string{"configuration file is empty"}},
		{"no rules", head, ErrPolicyInvalid, []string{"rules: Required value"}},
		{"missing level", head + "rules:\n- verbs: [get]\n", ErrPolicyInvalid, []string{"rules[0].level: Required value"}},
		{"bad level", head + "rules:\n- level: Everything\n", ErrPolicyInvalid, []string{`rules[0].level: Unsupported value: "Everything"`}},
		{"bad policy omitStages", head + "omitStages: [Started]\nrules:\n- level: None\n", ErrPolicyInvalid, []string{`omitStages[0]: Unsupported value: "Started"`}},
		{"bad rule omitStages", head + "rules:\n- level: None\n- level: None\n  omitStages: [RequestReceived, Done]\n", ErrPolicyInvalid, []string{`rules[1].omitStages[1]`}},
		{"url without slash", head + "rules:\n- level: None\n  nonResourceURLs: [healthz]\n", ErrPolicyInvalid, []string{"rules[0].nonResourceURLs[0]", "must begin with a '/'"}},
		{"url inner wildcard", head + "rules:\n- level: None\n  nonResourceURLs: [/a*/b]\n", ErrPolicyInvalid, []string{"rules[0].nonResourceURLs[0]", "final character"}},
		{"urls and resources", head + "rules:\n- level: None\n  nonResourceURLs: [/a]\n  namespaces: [x]\n", ErrPolicyInvalid, []string{"rules[0].nonResourceURLs", "both regular resources and non-resource URLs"}},
		{"group with version", head + "rules:\n- level: None\n  resources:\n  - group: rbac.authorization.k8s.io/v1\n", ErrPolicyInvalid, []string{"rules[0].resources[0].group"}},
		{"names without resources", head + "rules:\n- level: None\n  resources:\n  - group: ''\n    resourceNames: [x]\n", ErrPolicyInvalid, []string{"rules[0].resources[0].resourceNames", "requires at least one resource"}},
		{"all problems reported", head + "omitStages: [X]\nrules:\n- level: Big\n", ErrPolicyInvalid, []string{"omitStages[0]", "rules[0].level"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParsePolicy([]byte(tt.in))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ParsePolicy() = %v, %v; want error %v", p, err, tt.wantErr)
			}
			for _, m := range tt.wantMsg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not mention %q", err, m)
				}
			}
		})
	}
}

func TestLoadPolicy(t *testing.T) {
	for _, name := range []string{"cluster.yaml", "matching.yaml", "minimal.json"} {
		t.Run(name, func(t *testing.T) {
			if _, err := LoadPolicy(filepath.Join("testdata", "policies", name)); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("missing file", func(t *testing.T) {
		_, err := LoadPolicy(filepath.Join(t.TempDir(), "nope.yaml"))
		if !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("LoadPolicy() error = %v, want ErrNotExist", err)
		}
	})
	t.Run("error names the file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "bad.yaml")
		if err := os.WriteFile(path, []byte("kind: Policy\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := LoadPolicy(path)
		if !errors.Is(err, ErrPolicyDecode) || !strings.Contains(err.Error(), path) {
			t.Fatalf("LoadPolicy() error = %v", err)
		}
	})
}

func mustParse(t testing.TB, policy string) *Policy {
	t.Helper()
	p, err := ParsePolicy([]byte(policy))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func resourceInfo(verb, group, resource, sub, ns, name string) *request.Info {
	version := "v1"
	return &request.Info{
		IsResourceRequest: true, Verb: verb, APIGroup: group, APIVersion: version,
		Resource: resource, Subresource: sub, Namespace: ns, Name: name,
	}
}

func nonResourceInfo(verb, path string) *request.Info {
	return &request.Info{Verb: verb, Path: path}
}

// TestEvaluate checks each matching rule of kube-apiserver's audit policy
// on a policy with one rule per case.
func TestEvaluate(t *testing.T) {
	alice := &user.DefaultInfo{Name: "alice", Groups: []string{"admins", "system:authenticated"}}
	bob := &user.DefaultInfo{Name: "bob", Groups: []string{"devs"}}
	const head = "apiVersion: audit.k8s.io/v1\nkind: Policy\n"
	tests := []struct {
		name   string
		rules  string
		info   *request.Info
		user   user.Info
		want   auditv1.Level
		reason string
	}{
		{"empty rule matches all", "- level: Metadata\n", nonResourceInfo("get", "/x"), nil, auditv1.LevelMetadata, ""},
		{"user matches", "- level: Metadata\n  users: [alice]\n", nonResourceInfo("get", "/x"), alice, auditv1.LevelMetadata, ""},
		{"user differs", "- level: Metadata\n  users: [alice]\n", nonResourceInfo("get", "/x"), bob, auditv1.LevelNone, ""},
		{"user rule without user", "- level: Metadata\n  users: [alice]\n", nonResourceInfo("get", "/x"), nil, auditv1.LevelNone, ""},
		{"group matches", "- level: Metadata\n  userGroups: [devs, ops]\n", nonResourceInfo("get", "/x"), bob, auditv1.LevelMetadata, ""},
		{"group differs", "- level: Metadata\n  userGroups: [ops]\n", nonResourceInfo("get", "/x"), bob, auditv1.LevelNone, ""},
		{"users and groups both needed", "- level: Metadata\n  users: [bob]\n  userGroups: [admins]\n", nonResourceInfo("get", "/x"), bob, auditv1.LevelNone, ""},
		{"verb matches", "- level: Metadata\n  verbs: [list, watch]\n", resourceInfo("watch", "", "pods", "", "", ""), nil, auditv1.LevelMetadata, ""},
		{"verb differs", "- level: Metadata\n  verbs: [get]\n", resourceInfo("list", "", "pods", "", "", ""), nil, auditv1.LevelNone, ""},
		{"non-resource verb is the lower-case method", "- level: Metadata\n  verbs: [post]\n", nonResourceInfo("post", "/x"), nil, auditv1.LevelMetadata, ""},
		{"core group", "- level: Metadata\n  resources: [{group: ''}]\n", resourceInfo("get", "", "pods", "", "a", "p"), nil, auditv1.LevelMetadata, ""},
		{"core group misses apps", "- level: Metadata\n  resources: [{group: ''}]\n", resourceInfo("get", "apps", "deployments", "", "a", "d"), nil, auditv1.LevelNone, ""},
		{"group wildcard", "- level: Metadata\n  resources: [{group: '*', resources: [deployments]}]\n", resourceInfo("get", "apps", "deployments", "", "a", "d"), nil, auditv1.LevelMetadata, ""},
		{"resource rule misses non-resource", "- level: Metadata\n  resources: [{group: '*'}]\n", nonResourceInfo("get", "/apis"), nil, auditv1.LevelNone, ""},
		{"resource rule misses subresource", "- level: Metadata\n  resources: [{resources: [pods]}]\n", resourceInfo("get", "", "pods", "log", "a", "p"), nil, auditv1.LevelNone, ""},
		{"subresource exact", "- level: Metadata\n  resources: [{resources: [pods/log]}]\n", resourceInfo("get", "", "pods", "log", "a", "p"), nil, auditv1.LevelMetadata, ""},
		{"subresource rule misses resource", "- level: Metadata\n  resources: [{resources: [pods/log]}]\n", resourceInfo("get", "", "pods", "", "a", "p"), nil, auditv1.LevelNone, ""},
		{"resource/* matches subresource", "- level: Metadata\n  resources: [{resources: [pods/*]}]\n", resourceInfo("create", "", "pods", "eviction", "a", "p"), nil, auditv1.LevelMetadata, ""},
		{"resource/* matches resource", "- level: Metadata\n  resources: [{resources: [pods/*]}]\n", resourceInfo("get", "", "pods", "", "a", "p"), nil, auditv1.LevelMetadata, ""},
		{"*/sub matches", "- level: Metadata\n  resources: [{resources: ['*/status']}]\n", resourceInfo("update", "", "nodes", "status", "", "n"), nil, auditv1.LevelMetadata, ""},
		{"*/sub misses resource", "- level: Metadata\n  resources: [{resources: ['*/status']}]\n", resourceInfo("update", "", "nodes", "", "", "n"), nil, auditv1.LevelNone, ""},
		{"* matches subresources", "- level: Metadata\n  resources: [{resources: ['*']}]\n", resourceInfo("get", "", "pods", "log", "a", "p"), nil, auditv1.LevelMetadata, ""},
		{"prefix is not a match", "- level: Metadata\n  resources: [{resources: [pod]}]\n", resourceInfo("get", "", "pods", "", "a", "p"), nil, auditv1.LevelNone, ""},
		{"longer subresource pattern", "- level: Metadata\n  resources: [{resources: [pods/logs]}]\n", resourceInfo("get", "", "pods", "log", "a", "p"), nil, auditv1.LevelNone, ""},
		{"resourceNames match", "- level: Metadata\n  resources: [{resources: [configmaps], resourceNames: [a, b]}]\n", resourceInfo("get", "", "configmaps", "", "x", "b"), nil, auditv1.LevelMetadata, ""},
		{"resourceNames miss collection", "- level: Metadata\n  resources: [{resources: [configmaps], resourceNames: [a]}]\n", resourceInfo("list", "", "configmaps", "", "x", ""), nil, auditv1.LevelNone, ""},
		{"later group entry matches", "- level: Metadata\n  resources: [{group: apps}, {group: batch, resources: [jobs]}]\n", resourceInfo("get", "batch", "jobs", "", "x", "j"), nil, auditv1.LevelMetadata, ""},
		{"namespace matches", "- level: Metadata\n  namespaces: [kube-system]\n", resourceInfo("get", "", "pods", "", "kube-system", "p"), nil, auditv1.LevelMetadata, ""},
		{"namespace differs", "- level: Metadata\n  namespaces: [kube-system]\n", resourceInfo("get", "", "pods", "", "default", "p"), nil, auditv1.LevelNone, ""},
		{"empty namespace matches cluster scope", "- level: Metadata\n  namespaces: ['']\n", resourceInfo("get", "", "nodes", "", "", "n"), nil, auditv1.LevelMetadata, ""},
		{"empty namespace misses namespaced", "- level: Metadata\n  namespaces: ['']\n", resourceInfo("get", "", "pods", "", "a", "p"), nil, auditv1.LevelNone, ""},
		{"namespace rule misses non-resource", "- level: Metadata\n  namespaces: ['']\n", nonResourceInfo("get", "/healthz"), nil, auditv1.LevelNone, ""},
		{"url exact", "- level: Metadata\n  nonResourceURLs: [/healthz]\n", nonResourceInfo("get", "/healthz"), nil, auditv1.LevelMetadata, ""},
		{"url exact misses longer", "- level: Metadata\n  nonResourceURLs: [/healthz]\n", nonResourceInfo("get", "/healthz/etcd"), nil, auditv1.LevelNone, ""},
		{"url prefix", "- level: Metadata\n  nonResourceURLs: [/healthz*]\n", nonResourceInfo("get", "/healthz/etcd"), nil, auditv1.LevelMetadata, ""},
		{"url star", "- level: Metadata\n  nonResourceURLs: ['*']\n", nonResourceInfo("get", "/anything"), nil, auditv1.LevelMetadata, ""},
		{"url rule misses resources", "- level: Metadata\n  nonResourceURLs: ['*']\n", resourceInfo("get", "", "pods", "", "a", "p"), nil, auditv1.LevelNone, ""},
		{"first match wins", "- level: Request\n  verbs: [get]\n- level: RequestResponse\n", resourceInfo("get", "", "pods", "", "a", "p"), nil, auditv1.LevelRequest, ""},
		{"None rule stops the walk", "- level: None\n  verbs: [get]\n- level: RequestResponse\n", resourceInfo("get", "", "pods", "", "a", "p"), nil, auditv1.LevelNone, ""},
		{"nil info", "- level: Metadata\n  nonResourceURLs: ['*']\n", nil, nil, auditv1.LevelMetadata, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustParse(t, head+"rules:\n"+tt.rules)
			if got := p.Evaluate(tt.info, tt.user).Level; got != tt.want {
				t.Errorf("Evaluate() level = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestEvaluateStagesAndManagedFields(t *testing.T) {
	p := mustParse(t, `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [ResponseStarted, RequestReceived]
omitManagedFields: true
rules:
- level: Request
  verbs: [create]
  omitStages: [Panic, RequestReceived]
  omitManagedFields: false
- level: Metadata
  verbs: [get]
`)
	tests := []struct {
		name string
		verb string
		want Decision
	}{
		{"rule stages merged, rule keeps managed fields", "create", Decision{
			Level:      auditv1.LevelRequest,
			OmitStages: []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseStarted, auditv1.StagePanic},
		}},
		{"policy defaults", "get", Decision{
			Level:             auditv1.LevelMetadata,
			OmitStages:        []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseStarted},
			OmitManagedFields: true,
		}},
		{"no match", "delete", Decision{
			Level:             auditv1.LevelNone,
			OmitStages:        []auditv1.Stage{auditv1.StageRequestReceived, auditv1.StageResponseStarted},
			OmitManagedFields: true,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := p.Evaluate(resourceInfo(tt.verb, "", "pods", "", "a", "p"), nil)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Evaluate() mismatch (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("nil policy audits nothing", func(t *testing.T) {
		var p *Policy
		if p.Evaluate(nil, nil).Audited() {
			t.Error("nil policy audits")
		}
	})
}

// goldenRequests are evaluated against every policy under testdata/policies;
// the decisions are in testdata/decisions/<policy>.golden.
var goldenRequests = []struct {
	name string
	info *request.Info
	user user.Info
}{
	{"kube-proxy watches endpoints", resourceInfo("watch", "", "endpoints", "", "", ""), &user.DefaultInfo{Name: "system:kube-proxy"}},
	{"kube-proxy watches endpointslices", resourceInfo("watch", "discovery.k8s.io", "endpointslices", "", "", ""), &user.DefaultInfo{Name: "system:kube-proxy"}},
	{"kube-proxy lists endpoints", resourceInfo("list", "", "endpoints", "", "", ""), &user.DefaultInfo{Name: "system:kube-proxy"}},
	{"healthz", nonResourceInfo("get", "/healthz"), nil},
	{"readyz etcd", nonResourceInfo("get", "/readyz/etcd"), nil},
	{"version", nonResourceInfo("get", "/version"), nil},
	{"apis discovery", nonResourceInfo("get", "/apis/apps/v1"), nil},
	{"openapi v3", nonResourceInfo("get", "/openapi/v3"), nil},
	{"node renews lease", resourceInfo("update", "coordination.k8s.io", "leases", "", "kube-node-lease", "node-1"), &user.DefaultInfo{Name: "system:node:node-1", Groups: []string{"system:nodes"}}},
	{"get secret", resourceInfo("get", "", "secrets", "", "default", "token"), &user.DefaultInfo{Name: "bob", Groups: []string{"devs"}}},
	{"create secret", resourceInfo("create", "", "secrets", "", "default", ""), &user.DefaultInfo{Name: "bob"}},
	{"create token", resourceInfo("create", "", "serviceaccounts", "token", "default", "builder"), &user.DefaultInfo{Name: "bob"}},
	{"tokenreview", resourceInfo("create", "authentication.k8s.io", "tokenreviews", "", "", ""), &user.DefaultInfo{Name: "system:apiserver"}},
	{"exec", resourceInfo("create", "", "pods", "exec", "default", "web-0"), &user.DefaultInfo{Name: "alice", Groups: []string{"admins"}}},
	{"pod logs", resourceInfo("get", "", "pods", "log", "default", "web-0"), &user.DefaultInfo{Name: "bob"}},
	{"list pods all namespaces", resourceInfo("list", "", "pods", "", "", ""), &user.DefaultInfo{Name: "bob"}},
	{"list nodes", resourceInfo("list", "", "nodes", "", "", ""), &user.DefaultInfo{Name: "bob"}},
	{"patch deployment scale", resourceInfo("patch", "apps", "deployments", "scale", "default", "web"), &user.DefaultInfo{Name: "bob"}},
	{"update deployment", resourceInfo("update", "apps", "deployments", "", "default", "web"), &user.DefaultInfo{Name: "bob"}},
	{"update node status", resourceInfo("update", "", "nodes", "status", "", "node-1"), &user.DefaultInfo{Name: "system:node:node-1", Groups: []string{"system:nodes"}}},
	{"get cluster-info", resourceInfo("get", "", "configmaps", "", "kube-public", "cluster-info"), &user.DefaultInfo{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}},
	{"get other configmap in kube-public", resourceInfo("get", "", "configmaps", "", "kube-public", "other"), &user.DefaultInfo{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}},
	{"delete clusterrole", resourceInfo("delete", "rbac.authorization.k8s.io", "clusterroles", "", "", "view"), &user.DefaultInfo{Name: "bob"}},
	{"alice as admin", resourceInfo("delete", "", "namespaces", "", "", "prod"), &user.DefaultInfo{Name: "alice", Groups: []string{"admins"}}},
	{"alice not admin", resourceInfo("delete", "", "namespaces", "", "", "prod"), &user.DefaultInfo{Name: "alice"}},
	{"anonymous post", nonResourceInfo("post", "/logs"), &user.DefaultInfo{Name: "system:anonymous", Groups: []string{"system:unauthenticated"}}},
}

func TestEvaluateGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "policies", "*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no policies: %v", err)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		t.Run(name, func(t *testing.T) {
			p, err := LoadPolicy(path)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "# Decisions of %s; regenerate with go test -run TestEvaluateGolden -update\n", filepath.Base(path))
			for _, r := range goldenRequests {
				d := p.Evaluate(r.info, r.user)
				fmt.Fprintf(&b, "%-36s %-15s omit=%v omitManagedFields=%v\n", r.name, d.Level, d.OmitStages, d.OmitManagedFields)
			}
			golden := filepath.Join("testdata", "decisions", name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), b.String()); diff != "" {
				t.Errorf("decisions differ from %s (-want +got):\n%s", golden, diff)
			}
		})
	}
}

func FuzzParsePolicy(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "policies", "*"))
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  level: None\n"))
	f.Add([]byte(`{"apiVersion":"audit.k8s.io/v1","kind":"Policy","rules":[{"level":"Request","resources":[{"group":"*","resources":["*/status"]}]}]}`))
	f.Add([]byte("a: &a [*a, *a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePolicy(data)
		if err != nil {
			if p != nil {
				t.Fatal("policy returned with an error")
			}
			if !errors.Is(err, ErrPolicyDecode) && !errors.Is(err, ErrPolicyInvalid) {
				t.Fatalf("unclassified error: %v", err)
			}
			return
		}
		// A valid policy must evaluate any request without panicking.
		for _, r := range goldenRequests {
			d := p.Evaluate(r.info, r.user)
			if d.Level == "" {
				t.Fatalf("empty level for %s", r.name)
			}
		}
	})
}
