package podsecurity

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/pod-security-admission/api"
)

// loaded is a config as the tests compare it.
type loaded struct {
	Defaults                              string
	Usernames, Namespaces, RuntimeClasses []string
}

func summarize(c *config) loaded {
	p := c.defaults
	return loaded{
		Defaults:       "enforce=" + p.Enforce.String() + " audit=" + p.Audit.String() + " warn=" + p.Warn.String(),
		Usernames:      sortedOrNil(c.usernames.UnsortedList()),
		Namespaces:     sortedOrNil(c.namespaces.UnsortedList()),
		RuntimeClasses: sortedOrNil(c.runtimeClasses.UnsortedList()),
	}
}

func TestLoadConfig(t *testing.T) {
	const privileged = "enforce=privileged:latest audit=privileged:latest warn=privileged:latest"
	for _, tc := range []struct {
		name    string
		data    string
		want    loaded
		wantErr string
	}{{
		name: "empty: kube-apiserver's defaults",
		want: loaded{Defaults: privileged},
	}, {
		name: "v1 with every field",
		data: `apiVersion: pod-security.admission.config.k8s.io/v1
kind: PodSecurityConfiguration
defaults:
  enforce: baseline
  enforce-version: v1.30
  audit: restricted
  audit-version: latest
  warn: restricted
  warn-version: v1.25
exemptions:
  usernames: [system:serviceaccount:kube-system:replicaset-controller]
  namespaces: [kube-system]
  runtimeClasses: [kata]
`,
		want: loaded{
			Defaults:       "enforce=baseline:v1.30 audit=restricted:latest warn=restricted:v1.25",
			Usernames:      []string{"system:serviceaccount:kube-system:replicaset-controller"},
			Namespaces:     []string{"kube-system"},
			RuntimeClasses: []string{"kata"},
		},
	}, {
		name: "v1 leaves unset modes privileged:latest",
		data: "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  enforce: restricted\n",
		want: loaded{Defaults: "enforce=restricted:latest audit=privileged:latest warn=privileged:latest"},
	}, {
		name: "v1beta1 as JSON",
		data: `{"apiVersion":"pod-security.admission.config.k8s.io/v1beta1","kind":"PodSecurityConfiguration","defaults":{"warn":"baseline"},"exemptions":{"namespaces":["a","b"]}}`,
		want: loaded{Defaults: "enforce=privileged:latest audit=privileged:latest warn=baseline:latest", Namespaces: []string{"a", "b"}},
	}, {
		name: "v1alpha1",
		data: "apiVersion: pod-security.admission.config.k8s.io/v1alpha1\nkind: PodSecurityConfiguration\ndefaults:\n  audit: baseline\n  audit-version: v1.23\n",
		want: loaded{Defaults: "enforce=privileged:latest audit=baseline:v1.23 warn=privileged:latest"},
	}, {
		name:    "unknown field",
		data:    "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  enforcee: baseline\n",
		wantErr: `strict decoding error: unknown field "defaults.enforcee"`,
	}, {
		name:    "duplicate field",
		data:    "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  enforce: baseline\n  enforce: restricted\n",
		wantErr: "strict decoding error: yaml: unmarshal errors:\n  line 5: key \"enforce\" already set in map",
	}, {
		name:    "unknown version",
		data:    "apiVersion: pod-security.admission.config.k8s.io/v2\nkind: PodSecurityConfiguration\n",
		wantErr: `no kind "PodSecurityConfiguration" is registered for version "pod-security.admission.config.k8s.io/v2" in scheme "pkg/runtime/scheme.go:111"`,
	}, {
		name:    "wrong kind",
		data:    "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: AdmissionConfiguration\n",
		wantErr: `no kind "AdmissionConfiguration" is registered for version "pod-security.admission.config.k8s.io/v1" in scheme "pkg/runtime/scheme.go:111"`,
	}, {
		name:    "no kind",
		data:    "defaults: {}\n",
		wantErr: "Object 'Kind' is missing in 'defaults: {}\n'",
	}, {
		name:    "bad level",
		data:    "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  enforce: strict\n",
		wantErr: "PodSecurity configuration error: enforce: must be one of privileged, baseline, restricted",
	}, {
		name:    "bad version",
		data:    "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  warn-version: v2.0\n",
		wantErr: `PodSecurity configuration error: warn-version: must be "latest" or "v1.x"`,
	}, {
		name: "bad exemptions, every one reported",
		data: "apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\nexemptions:\n  namespaces: [a, a]\n  usernames: ['']\n  runtimeClasses: [x, x]\n",
		wantErr: `PodSecurity invalid: [exemptions.namespaces[1]: Duplicate value: "a", exemptions.runtimeClasses[1]: Duplicate value: "x", ` +
			`exemptions.usernames[0]: Invalid value: "": username must not be empty]`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := loadConfig([]byte(tc.data))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summarize(c)); diff != "" {
				t.Errorf("config (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNewErrors: New refuses a plugin without its readers, and passes
// on the configuration's errors.
func TestNewErrors(t *testing.T) {
	if _, err := New(nil, Deps{}); !errors.Is(err, ErrMissingDependency) {
		t.Errorf("New without readers: error = %v, want ErrMissingDependency", err)
	}
	p := (&env{}).plugin(t, "")
	_, err := New([]byte("apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults: {enforce: x}\n"),
		Deps{Namespaces: p.namespaces, Pods: p.pods})
	const want = "PodSecurity configuration error: enforce: must be one of privileged, baseline, restricted"
	if err == nil || err.Error() != want {
		t.Errorf("New with a bad level: error = %v, want %q", err, want)
	}
}

// FuzzLoadConfig: no input makes the decoder panic, and what it accepts
// has valid levels and versions.
func FuzzLoadConfig(f *testing.F) {
	for _, s := range []string{
		"",
		"apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  enforce: baseline\nexemptions:\n  namespaces: [a]\n",
		`{"apiVersion":"pod-security.admission.config.k8s.io/v1beta1","kind":"PodSecurityConfiguration","defaults":{"warn-version":"v1.2"}}`,
		"apiVersion: pod-security.admission.config.k8s.io/v1alpha1\nkind: PodSecurityConfiguration\nexemptions: {usernames: [a, a]}\n",
		"{",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := loadConfig(data)
		if err != nil {
			return
		}
		for _, lv := range []api.LevelVersion{c.defaults.Enforce, c.defaults.Audit, c.defaults.Warn} {
			if !lv.Level.Valid() {
				t.Fatalf("accepted level %q", lv.Level)
			}
		}
	})
}
