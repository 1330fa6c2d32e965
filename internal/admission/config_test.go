package admission

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type recordingPlugin struct {
	name   string
	config string
}

func (p *recordingPlugin) Validate(context.Context, *Attributes) error { return nil }

func plugins(got map[string]string) []Plugin {
	mk := func(name string, on bool) Plugin {
		return Plugin{Name: name, DefaultEnabled: on, New: func(cfg []byte) (any, error) {
			got[name] = strings.TrimSpace(string(cfg))
			return &recordingPlugin{name: name}, nil
		}}
	}
	return []Plugin{mk("First", true), mk("Second", false), mk("Third", true)}
}

func TestBuild(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "second.yaml"), []byte("from: path\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: Second
  path: second.yaml
- name: Third
  configuration:
    inline: true
`)
	tests := []struct {
		name    string
		opts    Options
		enabled []string
		configs map[string]string
		errText string
	}{
		{name: "defaults", enabled: []string{"First", "Third"}, configs: map[string]string{"First": "", "Third": ""}},
		{name: "enable keeps the fixed order", opts: Options{Enable: []string{"Second"}, Disable: []string{"First"}}, enabled: []string{"Second", "Third"}, configs: map[string]string{"Second": "", "Third": ""}},
		{name: "unknown plugin", opts: Options{Enable: []string{"Nope"}}, errText: `unknown admission plugin "Nope"`},
		{name: "enabled and disabled", opts: Options{Enable: []string{"Second"}, Disable: []string{"Second"}}, errText: "in both"},
		{name: "config file", opts: Options{Enable: []string{"Second"}, ConfigFile: good}, enabled: []string{"First", "Second", "Third"},
			configs: map[string]string{"First": "", "Second": "from: path", "Third": `{"inline":true}`}},
		{name: "unknown field", opts: Options{ConfigFile: write("bad1.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugin: []\n")}, errText: `unknown field "plugin"`},
		{name: "duplicate field", opts: Options{ConfigFile: write("bad2.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nkind: AdmissionConfiguration\n")}, errText: "already set"},
		{name: "wrong kind", opts: Options{ConfigFile: write("bad3.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: Other\n")}, errText: `expected kind AdmissionConfiguration, got "Other"`},
		{name: "wrong version", opts: Options{ConfigFile: write("bad5.yaml", "apiVersion: apiserver.config.k8s.io/v2\nkind: AdmissionConfiguration\n")},
			errText: `unsupported apiVersion "apiserver.config.k8s.io/v2", want one of apiserver.config.k8s.io/v1, apiserver.config.k8s.io/v1alpha1`},
		{name: "field name case", opts: Options{ConfigFile: write("bad6.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nPlugins: []\n")}, errText: `unknown field "Plugins"`},
		{name: "empty file", opts: Options{ConfigFile: write("bad7.yaml", "\n")}, errText: "configuration file is empty"},
		{name: "old group name", opts: Options{ConfigFile: write("old.yaml", "apiVersion: apiserver.k8s.io/v1alpha1\nkind: AdmissionConfiguration\nplugins:\n- name: Third\n  configuration: {old: true}\n")},
			enabled: []string{"First", "Third"}, configs: map[string]string{"First": "", "Third": `{"old":true}`}},
		{name: "json", opts: Options{ConfigFile: write("good.json", `{"apiVersion":"apiserver.config.k8s.io/v1","kind":"AdmissionConfiguration","plugins":[{"name":"Third","configuration":{"json":1}}]}`)},
			enabled: []string{"First", "Third"}, configs: map[string]string{"First": "", "Third": `{"json":1}`}},
		{name: "missing path", opts: Options{ConfigFile: write("bad4.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: First\n  path: nope.yaml\n")}, errText: "plugins[0].path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]string{}
			chain, enabled, err := Build(plugins(got), tt.opts)
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("err = %v, want %q", err, tt.errText)
				}
				if !errors.Is(err, ErrConfig) {
					t.Errorf("%v is not ErrConfig", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.enabled, enabled); diff != "" {
				t.Error(diff)
			}
			if diff := cmp.Diff(tt.configs, got); diff != "" {
				t.Error(diff)
			}
			if len(chain.Validators) != len(tt.enabled) {
				t.Errorf("%d validators", len(chain.Validators))
			}
		})
	}
}
