package config

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestMatch checks kube-apiserver's precedence: exact resource, then
// "*.group" ("*." for the core group), then "*.*"; and that an unmatched
// resource gets -1 (clear text).
func TestMatch(t *testing.T) {
	const (
		id  = "\n  providers: [identity: {}]\n"
		gcm = "\n  providers: [aesgcm: {keys: [{name: k, secret: " + key32 + "}]}]\n"
	)
	for _, tc := range []struct {
		name string
		body string
		want map[string][]int // resource -> MatchAll; Match is its first or -1
	}{
		{
			name: "exact names only",
			body: "- resources: [secrets, configmaps]" + gcm + "- resources: [leases.coordination.k8s.io]" + id,
			want: map[string][]int{
				"secrets": {0}, "configmaps": {0}, "leases.coordination.k8s.io": {1},
				"pods": nil, "secrets.apps": nil, "leases": nil, "leases.coordination": nil,
			},
		},
		{
			name: "core wildcard covers only the core group",
			body: "- resources: ['*.']" + gcm,
			want: map[string][]int{"secrets": {0}, "pods": {0}, "deployments.apps": nil, "pandas.awesome.bears.example": nil},
		},
		{
			name: "group wildcard covers only its group",
			body: "- resources: ['*.apps']" + gcm,
			want: map[string][]int{"deployments.apps": {0}, "statefulsets.apps": {0}, "apps": nil, "deployments.apps.example": nil, "secrets": nil},
		},
		{
			name: "all wildcard covers everything",
			body: "- resources: ['*.*']" + gcm,
			want: map[string][]int{"secrets": {0}, "deployments.apps": {0}, "pandas.awesome.bears.example": {0}},
		},
		{
			name: "exact before group before all",
			body: "- resources: [secrets, deployments.apps]" + gcm +
				"- resources: ['*.apps', events]" + id +
				"- resources: ['*.']" + gcm +
				"- resources: ['*.*']" + id,
			want: map[string][]int{
				"secrets": {0}, "deployments.apps": {0}, "statefulsets.apps": {1}, "events": {1},
				"configmaps": {2}, "pods": {2}, "leases.coordination.k8s.io": {3},
				"events.events.k8s.io": {3}, "pandas.awesome.bears.example": {3},
			},
		},
		{
			name: "opt-out before all wildcard",
			body: "- resources: [events, configmaps.]" + id + "- resources: ['*.*']" + gcm,
			want: map[string][]int{"events": {0}, "configmaps": {0}, "secrets": {1}, "configmaps.apps": {1}},
		},
		{
			name: "wildcard listed after an exact name does not take it",
			body: "- resources: [secrets]" + id + "- resources: ['*.']" + gcm,
			want: map[string][]int{"secrets": {0}, "configmaps": {1}},
		},
		{
			name: "exact name in several entries chains them",
			body: "- resources: [secrets]" + gcm + "- resources: [configmaps]" + id + "- resources: [secrets.]" + id + "- resources: ['*.*']" + id,
			want: map[string][]int{"secrets": {0, 2}, "configmaps": {1}, "pods": {3}},
		},
		{
			name: "identity only still governs",
			body: "- resources: [secrets]" + id,
			want: map[string][]int{"secrets": {0}, "configmaps": nil},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(doc("resources:\n"+tc.body), Options{})
			if err != nil {
				t.Fatal(err)
			}
			for res, want := range tc.want {
				gr := schema.ParseGroupResource(res)
				wantFirst := -1
				if len(want) > 0 {
					wantFirst = want[0]
				}
				if got := c.Match(gr); got != wantFirst {
					t.Errorf("Match(%s) = %d, want %d", res, got, wantFirst)
				}
				if got := c.MatchAll(gr); !slices.Equal(got, want) {
					t.Errorf("MatchAll(%s) = %v, want %v", res, got, want)
				}
			}
		})
	}
}

func TestKMSProviders(t *testing.T) {
	c, err := Load("testdata/valid/kms-v2.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range c.KMSProviders() {
		names = append(names, k.Name)
	}
	if want := []string{"plugin-a", "plugin-b", "plugin-c"}; !slices.Equal(names, want) {
		t.Errorf("got %v, want %v", names, want)
	}
	// The result is a copy.
	c.KMSProviders()[0].Timeout.Duration = 0
	if c.KMSProviders()[0].Timeout.Duration == 0 {
		t.Error("KMSProviders shares its configurations")
	}

	none, err := Load("testdata/valid/aesgcm.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := none.KMSProviders(); len(got) != 0 {
		t.Errorf("got %v", got)
	}
}
