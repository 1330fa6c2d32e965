package authzconfig

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"flag"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var background = context.Background()

// quiet keeps expected webhook failures out of the test output.
var quiet = slog.New(slog.DiscardHandler)

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, d)
	}
}

// testWebhook is an HTTPS authorization webhook on 127.0.0.1 that allows
// the users in allow and has no opinion on the others.
type testWebhook struct {
	srv        *httptest.Server
	calls      atomic.Int64
	kubeconfig string
}

func newTestWebhook(t *testing.T, allow ...string) *testWebhook {
	t.Helper()
	w := &testWebhook{}
	w.srv = httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.calls.Add(1)
		var review authorizationv1.SubjectAccessReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		for _, u := range allow {
			if review.Spec.User == u {
				review.Status.Allowed = true
				review.Status.Reason = "allowed by the webhook"
			}
		}
		_ = json.NewEncoder(rw).Encode(review)
	}))
	t.Cleanup(w.srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: w.srv.Certificate().Raw})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ca.crt"), ca, 0o600); err != nil {
		t.Fatal(err)
	}
	w.kubeconfig = filepath.Join(dir, "webhook.kubeconfig")
	writeFile(t, w.kubeconfig, `apiVersion: v1
kind: Config
clusters:
- name: w
  cluster: {server: "`+w.srv.URL+`", certificate-authority: ca.crt}
users:
- name: u
  user: {token: secret}
contexts:
- name: c
  context: {cluster: w, user: u}
current-context: c
`)
	return w
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// webhookEntry is a configuration entry for a webhook.
func webhookEntry(name, kubeconfig string, extra ...string) string {
	return `  - type: Webhook
    name: ` + name + `
    webhook:
      timeout: 2s
      subjectAccessReviewVersion: v1
      matchConditionSubjectAccessReviewVersion: v1
      failurePolicy: NoOpinion
      connectionInfo: {type: KubeConfigFile, kubeConfigFile: "` + kubeconfig + `"}
` + strings.Join(append(extra, ""), "\n")
}

func configYAML(entries ...string) string {
	return "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n" + strings.Join(entries, "")
}

const (
	rbacEntry        = "  - {type: RBAC, name: rbac}\n"
	nodeEntry        = "  - {type: Node, name: node}\n"
	alwaysDenyEntry  = "  - {type: AlwaysDeny, name: alwaysdeny}\n"
	alwaysAllowEntry = "  - {type: AlwaysAllow, name: alwaysallow}\n"
)

// fakeAuthorizer allows the users in allow, denies those in deny, and
// lists one rule.
type fakeAuthorizer struct {
	name        string
	allow, deny []string
	calls       atomic.Int64
}

func (f *fakeAuthorizer) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	f.calls.Add(1)
	for _, u := range f.allow {
		if a.GetUser().GetName() == u {
			return authorizer.DecisionAllow, f.name + " allows", nil
		}
	}
	for _, u := range f.deny {
		if a.GetUser().GetName() == u {
			return authorizer.DecisionDeny, f.name + " denies", nil
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

func (f *fakeAuthorizer) ConditionsAwareAuthorize(ctx context.Context, a authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return authorizer.ConditionsAwareDecisionFromParts(f.Authorize(ctx, a))
}

func (f *fakeAuthorizer) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}

func (f *fakeAuthorizer) RulesFor(context.Context, user.Info, string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	return []authorizer.ResourceRuleInfo{&authorizer.DefaultResourceRuleInfo{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{f.name}}}, nil, false, nil
}

func request(name string, groups ...string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{
		User: &user.DefaultInfo{Name: name, Groups: groups},
		Verb: "get", Namespace: "default", APIVersion: "v1", Resource: "pods", Name: "p", ResourceRequest: true,
	}
}
