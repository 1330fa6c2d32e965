package authzconfig

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/authz/webhook"
)

func mustParse(t *testing.T, yaml string) *Config {
	t.Helper()
	cfg, err := Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestChain(t *testing.T) {
	hook := newTestWebhook(t, "carol")
	down := newTestWebhook(t)
	down.srv.Close() // a webhook that cannot be reached
	tests := []struct {
		name       string
		config     string
		attrs      authorizer.AttributesRecord
		want       authorizer.Decision
		wantReason string
		wantErr    bool
	}{
		{"masters allowed first", configYAML(alwaysDenyEntry), request("root", "system:masters"), authorizer.DecisionAllow, "", false},
		{"node decides before rbac", configYAML(nodeEntry, rbacEntry), request("system:node:n1"), authorizer.DecisionAllow, "node allows", false},
		{"rbac allows", configYAML(nodeEntry, rbacEntry), request("alice"), authorizer.DecisionAllow, "rbac allows", false},
		{"rbac denies", configYAML(nodeEntry, rbacEntry), request("mallory"), authorizer.DecisionDeny, "rbac denies", false},
		{"nobody decides", configYAML(nodeEntry, rbacEntry), request("bob"), authorizer.DecisionNoOpinion, "", false},
		{"always deny has no opinion, with a reason", configYAML(rbacEntry, alwaysDenyEntry), request("bob"), authorizer.DecisionNoOpinion, "alwaysdeny: Everything is forbidden.", false},
		{"always allow", configYAML(rbacEntry, alwaysAllowEntry), request("bob"), authorizer.DecisionAllow, "", false},
		{"order matters", configYAML(alwaysAllowEntry, rbacEntry), request("mallory"), authorizer.DecisionAllow, "", false},
		{"webhook allows", configYAML(webhookEntry("hook", hook.kubeconfig), rbacEntry), request("carol"), authorizer.DecisionAllow, "allowed by the webhook", false},
		{"webhook has no opinion, rbac allows", configYAML(webhookEntry("hook", hook.kubeconfig), rbacEntry), request("alice"), authorizer.DecisionAllow, "rbac allows", false},
		{"webhook down, rbac allows", configYAML(webhookEntry("down", down.kubeconfig), rbacEntry), request("alice"), authorizer.DecisionAllow, "rbac allows", false},
		{"webhook down, nobody allows", configYAML(webhookEntry("down", down.kubeconfig), rbacEntry, alwaysDenyEntry), request("bob"), authorizer.DecisionNoOpinion, "alwaysdeny: Everything is forbidden.", true},
		{"match condition excludes", configYAML(webhookEntry("hook", hook.kubeconfig, "      matchConditions: [{expression: \"request.user != 'carol'\"}]"), rbacEntry), request("carol"), authorizer.DecisionNoOpinion, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			deps := Deps{
				Node:           &fakeAuthorizer{name: "node", allow: []string{"system:node:n1"}},
				RBAC:           &fakeAuthorizer{name: "rbac", allow: []string{"alice", "system:node:n1"}, deny: []string{"mallory"}},
				WebhookBackoff: &wait.Backoff{Duration: time.Millisecond, Steps: 1},
				Logger:         quiet,
			}
			az, err := Build(mustParse(t, tt.config), deps)
			if err != nil {
				t.Fatal(err)
			}
			d, reason, err := az.Authorize(background, tt.attrs)
			if d != tt.want || reason != tt.wantReason || (err != nil) != tt.wantErr {
				t.Fatalf("got (%v, %q, %v), want (%v, %q, err %v)", d, reason, err, tt.want, tt.wantReason, tt.wantErr)
			}
			if cd := az.ConditionsAwareAuthorize(background, tt.attrs); cd.IsAllow() != (tt.want == authorizer.DecisionAllow) {
				t.Errorf("ConditionsAwareAuthorize disagrees: %+v", cd)
			}
		})
	}
}

func TestChainMastersSkipsTheRest(t *testing.T) {
	rbac := &fakeAuthorizer{name: "rbac"}
	az, err := Build(mustParse(t, configYAML(rbacEntry)), Deps{RBAC: rbac})
	if err != nil {
		t.Fatal(err)
	}
	if d, _, _ := az.Authorize(background, request("root", "system:masters")); d != authorizer.DecisionAllow {
		t.Fatal(d)
	}
	if rbac.calls.Load() != 0 {
		t.Error("RBAC was asked about a system:masters request")
	}
	d, reason, err := az.Authorize(background, authorizer.AttributesRecord{Verb: "get", Path: "/"})
	if d != authorizer.DecisionNoOpinion || reason != privilegedName+": Error" || err == nil {
		t.Errorf("userless request: (%v, %q, %v)", d, reason, err)
	}
}

func TestDecisionMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	deps := Deps{
		RBAC:       &fakeAuthorizer{name: "rbac", allow: []string{"alice"}, deny: []string{"mallory"}},
		Node:       &fakeAuthorizer{name: "node", allow: []string{"system:node:n1"}},
		Registerer: reg,
	}
	cfg := mustParse(t, configYAML(nodeEntry, rbacEntry))
	az, err := Build(cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	// A second chain on the same registry shares the metrics. A decision
	// never made has no series (the Node authorizer denies nobody here).
	az2, err := Build(cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"alice", "alice", "mallory", "system:node:n1", "bob"} {
		_, _, _ = az.Authorize(background, request(u))
	}
	_, _, _ = az2.Authorize(background, request("alice"))
	_, _, _ = az.Authorize(background, request("root", "system:masters"))
	want := `
# HELP apiserver_authorization_decisions_total [ALPHA] Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.
# TYPE apiserver_authorization_decisions_total counter
apiserver_authorization_decisions_total{decision="allowed",name="node",type="Node"} 1
apiserver_authorization_decisions_total{decision="allowed",name="rbac",type="RBAC"} 3
apiserver_authorization_decisions_total{decision="denied",name="rbac",type="RBAC"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "apiserver_authorization_decisions_total"); err != nil {
		t.Fatal(err)
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  *Config
		deps Deps
		want error
	}{
		{"rbac missing", mustParse(t, configYAML(rbacEntry)), Deps{}, ErrMissingAuthorizer},
		{"node missing", mustParse(t, configYAML(nodeEntry)), Deps{RBAC: &fakeAuthorizer{}}, ErrMissingAuthorizer},
		{"nil config", nil, Deps{}, ErrInvalid},
		{"bad kubeconfig", func() *Config {
			path := t.TempDir() + "/bad.kubeconfig"
			writeFile(t, path, "apiVersion: v1\nkind: Config\n")
			return mustParse(t, configYAML(webhookEntry("w", path)))
		}(), Deps{}, webhook.ErrConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Build(tt.cfg, tt.deps); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestRulesFor(t *testing.T) {
	hook := newTestWebhook(t)
	az, err := Build(mustParse(t, configYAML(rbacEntry, webhookEntry("hook", hook.kubeconfig), alwaysDenyEntry)),
		Deps{RBAC: &fakeAuthorizer{name: "rbac"}})
	if err != nil {
		t.Fatal(err)
	}
	rr, ok := az.(authorizer.RuleResolver)
	if !ok {
		t.Fatal("the chain is not a RuleResolver")
	}
	res, nonRes, incomplete, err := rr.RulesFor(background, request("alice").User, "default")
	if len(res) != 1 || res[0].GetResources()[0] != "rbac" || len(nonRes) != 0 {
		t.Errorf("rules %v %v", res, nonRes)
	}
	if !incomplete || !errors.Is(err, webhook.ErrRulesNotSupported) {
		t.Errorf("incomplete %v, err %v: a webhook cannot list rules", incomplete, err)
	}

	az, err = Build(mustParse(t, configYAML(alwaysAllowEntry)), Deps{})
	if err != nil {
		t.Fatal(err)
	}
	res, nonRes, incomplete, err = az.(authorizer.RuleResolver).RulesFor(background, request("alice").User, "")
	if len(res) != 1 || len(nonRes) != 1 || incomplete || err != nil {
		t.Errorf("AlwaysAllow rules: %v %v %v %v", res, nonRes, incomplete, err)
	}
}
