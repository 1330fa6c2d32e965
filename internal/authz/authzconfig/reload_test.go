package authzconfig

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/configfile"
)

// reloadEnv is a controller over a file in a temporary directory.
type reloadEnv struct {
	path string
	reg  *prometheus.Registry
	ctl  *Controller
	hook *testWebhook
}

func newReloadEnv(t *testing.T, initial string, interval time.Duration) *reloadEnv {
	t.Helper()
	e := &reloadEnv{
		path: filepath.Join(t.TempDir(), "authz.yaml"),
		reg:  prometheus.NewRegistry(),
		hook: newTestWebhook(t, "carol"),
	}
	writeFile(t, e.path, initial)
	ctl, err := NewController(e.path, nil, Deps{
		RBAC:           &fakeAuthorizer{name: "rbac", allow: []string{"alice"}},
		Node:           &fakeAuthorizer{name: "node", allow: []string{"system:node:n1"}},
		Registerer:     e.reg,
		APIServerID:    "apiserver-1",
		Logger:         quiet,
		ReloadInterval: interval,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.ctl = ctl
	return e
}

func (e *reloadEnv) decide(t *testing.T, name string) authorizer.Decision {
	t.Helper()
	d, _, _ := e.ctl.Authorize(background, request(name))
	return d
}

func (e *reloadEnv) reloads(status string) float64 {
	n, _ := e.ctl.reloads.Reloads(status)
	return n
}

func TestReload(t *testing.T) {
	started := time.Now()
	var e *reloadEnv
	initial := configYAML(nodeEntry, rbacEntry, alwaysDenyEntry)
	withHook := func() string {
		return configYAML(nodeEntry, webhookEntry("hook", e.hook.kubeconfig), rbacEntry, alwaysDenyEntry)
	}
	steps := []struct {
		name        string
		write       func() string // nil: remove the file
		wantErr     string        // "" for none
		carol       authorizer.Decision
		alice       authorizer.Decision
		success     float64
		failure     float64
		appliedData func() string // the content the info metric names
	}{
		{"unchanged content is a no-op", func() string { return initial }, "", authorizer.DecisionNoOpinion, authorizer.DecisionAllow, 0, 0, func() string { return initial }},
		{"formatting only is not rebuilt", func() string { return "# comment\n" + initial }, "", authorizer.DecisionNoOpinion, authorizer.DecisionAllow, 0, 0, func() string { return initial }},
		{"a webhook is added", withHook, "", authorizer.DecisionAllow, authorizer.DecisionAllow, 1, 0, withHook},
		{"garbage keeps the last good", func() string { return "authorizers: [" }, "failed to load AuthorizationConfiguration", authorizer.DecisionAllow, authorizer.DecisionAllow, 1, 1, withHook},
		{"the same garbage is not retried", func() string { return "authorizers: [" }, "", authorizer.DecisionAllow, authorizer.DecisionAllow, 1, 1, withHook},
		{"invalid keeps the last good", func() string { return configYAML(nodeEntry, rbacEntry, alwaysDenyEntry, alwaysDenyEntry) }, `authorizers[3].type: Duplicate value: "AlwaysDeny"`, authorizer.DecisionAllow, authorizer.DecisionAllow, 1, 2, withHook},
		{"Node may not be removed", func() string { return configYAML(rbacEntry, alwaysDenyEntry) }, "missing required types: [Node]", authorizer.DecisionAllow, authorizer.DecisionAllow, 1, 3, withHook},
		{"AlwaysDeny may not be removed", func() string { return configYAML(nodeEntry, rbacEntry) }, "missing required types: [AlwaysDeny]", authorizer.DecisionAllow, authorizer.DecisionAllow, 1, 4, withHook},
		{"a removed file keeps the last good", nil, "no such file or directory", authorizer.DecisionAllow, authorizer.DecisionAllow, 1, 5, withHook},
		{"reordering is allowed", func() string { return configYAML(alwaysDenyEntry, rbacEntry, nodeEntry) }, "", authorizer.DecisionNoOpinion, authorizer.DecisionAllow, 2, 5, func() string { return configYAML(alwaysDenyEntry, rbacEntry, nodeEntry) }},
	}
	e = newReloadEnv(t, initial, time.Hour)
	for _, s := range steps {
		if s.write == nil {
			if err := os.Remove(e.path); err != nil {
				t.Fatal(err)
			}
		} else {
			writeFile(t, e.path, s.write())
		}
		err := e.ctl.check(background)
		if s.wantErr == "" && err != nil || s.wantErr != "" && (err == nil || !strings.Contains(err.Error(), s.wantErr)) {
			t.Fatalf("%s: err = %v, want %q", s.name, err, s.wantErr)
		}
		if err != nil && !errors.Is(err, ErrReload) {
			t.Errorf("%s: %v is not ErrReload", s.name, err)
		}
		if got := e.decide(t, "carol"); got != s.carol {
			t.Errorf("%s: carol %v, want %v", s.name, got, s.carol)
		}
		if got := e.decide(t, "alice"); got != s.alice {
			t.Errorf("%s: alice %v, want %v", s.name, got, s.alice)
		}
		if got := e.reloads("success"); got != s.success {
			t.Errorf("%s: %v successful reloads, want %v", s.name, got, s.success)
		}
		if got := e.reloads("failure"); got != s.failure {
			t.Errorf("%s: %v failed reloads, want %v", s.name, got, s.failure)
		}
		want := fmt.Sprintf(`
# HELP apiserver_authorization_config_controller_last_config_info [ALPHA] Information about the last applied authorization configuration with hash as label, split by apiserver identity.
# TYPE apiserver_authorization_config_controller_last_config_info gauge
apiserver_authorization_config_controller_last_config_info{apiserver_id_hash=%q,hash=%q} 1
`, configfile.Hash([]byte("apiserver-1")), configfile.Hash([]byte(s.appliedData())))
		if err := testutil.GatherAndCompare(e.reg, strings.NewReader(want), "apiserver_authorization_config_controller_last_config_info"); err != nil {
			t.Errorf("%s: %v", s.name, err)
		}
	}
	// The timestamps are of reloads this test made: between its start
	// (to the millisecond the metric keeps) and now.
	for _, status := range []string{"success", "failure"} {
		if _, ts := e.ctl.reloads.Reloads(status); ts.Before(started.Truncate(time.Millisecond)) || ts.After(time.Now()) {
			t.Errorf("last %s timestamp %v, want one after the test started at %v", status, ts, started)
		}
	}
}

func TestReloadMayNotAddRBACOrNode(t *testing.T) {
	for _, typ := range []string{"RBAC", "Node"} {
		t.Run(typ, func(t *testing.T) {
			e := newReloadEnv(t, configYAML(alwaysAllowEntry), time.Hour)
			writeFile(t, e.path, configYAML(alwaysAllowEntry, fmt.Sprintf("  - {type: %s, name: %s}\n", typ, strings.ToLower(typ))))
			err := e.ctl.check(background)
			want := "authorizer type " + typ + " is not allowed if it was not enabled at initial server startup"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v, want %q", err, want)
			}
			// AlwaysDeny, built here, may be added.
			writeFile(t, e.path, configYAML(alwaysDenyEntry, alwaysAllowEntry))
			if err := e.ctl.check(background); err != nil {
				t.Fatal(err)
			}
			if d, reason, _ := e.ctl.Authorize(background, request("x")); d != authorizer.DecisionAllow || reason != "" {
				t.Fatalf("got (%v, %q)", d, reason)
			}
		})
	}
}

// TestRunFollowsTheFile: an atomic replacement of the file is picked up
// from the file events alone (the poll is an hour away).
func TestRunFollowsTheFile(t *testing.T) {
	e := newReloadEnv(t, configYAML(nodeEntry, rbacEntry), time.Hour)
	ctx, cancel := context.WithCancel(background)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.ctl.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	<-e.ctl.watching

	if d := e.decide(t, "carol"); d != authorizer.DecisionNoOpinion {
		t.Fatal(d)
	}
	tmp := e.path + ".tmp"
	writeFile(t, tmp, configYAML(webhookEntry("hook", e.hook.kubeconfig), nodeEntry, rbacEntry))
	if err := os.Rename(tmp, e.path); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return e.decide(t, "carol") == authorizer.DecisionAllow })
}

// TestRunPolls: changes are found by the poll too.
func TestRunPolls(t *testing.T) {
	e := newReloadEnv(t, configYAML(nodeEntry, rbacEntry), 20*time.Millisecond)
	// Write before Run starts watching: only the poll can see it.
	writeFile(t, e.path, configYAML(webhookEntry("hook", e.hook.kubeconfig), nodeEntry, rbacEntry))
	ctx, cancel := context.WithCancel(background)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.ctl.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, func() bool { return e.decide(t, "carol") == authorizer.DecisionAllow })
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestNewControllerErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := NewController(filepath.Join(dir, "missing.yaml"), nil, Deps{}); !errors.Is(err, ErrDecode) {
		t.Errorf("missing file: %v", err)
	}
	path := filepath.Join(dir, "rbac.yaml")
	writeFile(t, path, configYAML(rbacEntry))
	if _, err := NewController(path, nil, Deps{}); !errors.Is(err, ErrMissingAuthorizer) {
		t.Errorf("no RBAC authorizer: %v", err)
	}
}
