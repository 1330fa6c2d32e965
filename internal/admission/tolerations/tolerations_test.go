package tolerations

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func secs(s int64) *int64 { return &s }

var (
	all       = corev1.Toleration{Operator: corev1.TolerationOpExists}
	fooExists = corev1.Toleration{Key: "foo", Operator: corev1.TolerationOpExists}
	fooNS     = corev1.Toleration{Key: "foo", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	fooBar    = corev1.Toleration{Key: "foo", Operator: corev1.TolerationOpEqual, Value: "bar", Effect: corev1.TaintEffectNoSchedule}
	fooBarNil = corev1.Toleration{Key: "foo", Value: "bar", Effect: corev1.TaintEffectNoSchedule}
	fooNE10   = corev1.Toleration{Key: "foo", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs(10)}
	fooNE20   = corev1.Toleration{Key: "foo", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs(20)}
	fooNE     = corev1.Toleration{Key: "foo", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}
	fooGt     = corev1.Toleration{Key: "foo", Operator: corev1.TolerationOperator("Gt"), Value: "5"}
	bar       = corev1.Toleration{Key: "bar", Operator: corev1.TolerationOpExists}
)

func TestSuperset(t *testing.T) {
	tests := []struct {
		name  string
		ss, t corev1.Toleration
		want  bool
	}{
		{name: "equal", ss: fooBar, t: fooBar, want: true},
		{name: "empty key Exists covers any key", ss: all, t: bar, want: true},
		{name: "other key", ss: fooExists, t: bar, want: false},
		{name: "empty effect covers an effect", ss: fooExists, t: fooNS, want: true},
		{name: "effect does not cover empty effect", ss: fooNS, t: fooExists, want: false},
		{name: "Exists covers Equal", ss: fooNS, t: fooBar, want: true},
		{name: "Equal does not cover an empty operator", ss: fooBar, t: fooBarNil, want: false},
		{name: "empty operator covers Equal", ss: fooBarNil, t: fooBar, want: true},
		{name: "longer seconds cover shorter", ss: fooNE20, t: fooNE10, want: true},
		{name: "shorter seconds do not cover longer", ss: fooNE10, t: fooNE20, want: false},
		{name: "bounded does not cover unbounded", ss: fooNE10, t: fooNE, want: false},
		{name: "unbounded covers bounded", ss: fooNE, t: fooNE10, want: true},
		{name: "a comparison operator covers only itself", ss: fooGt, t: fooBar, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Superset(tt.ss, tt.t); got != tt.want {
				t.Errorf("Superset(%v, %v) = %v, want %v", tt.ss, tt.t, got, tt.want)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name          string
		first, second []corev1.Toleration
		want          []corev1.Toleration
	}{
		{name: "nothing", want: nil},
		{name: "disjoint", first: []corev1.Toleration{fooNS}, second: []corev1.Toleration{bar}, want: []corev1.Toleration{fooNS, bar}},
		{name: "later superset wins", first: []corev1.Toleration{fooBar, bar}, second: []corev1.Toleration{fooNS}, want: []corev1.Toleration{bar, fooNS}},
		{name: "earlier superset wins", first: []corev1.Toleration{fooNS}, second: []corev1.Toleration{fooBar}, want: []corev1.Toleration{fooNS}},
		{name: "duplicates once", first: []corev1.Toleration{fooBar, fooBar}, second: []corev1.Toleration{fooBar}, want: []corev1.Toleration{fooBar}},
		{name: "match-all absorbs everything", first: []corev1.Toleration{fooNE10, bar}, second: []corev1.Toleration{all}, want: []corev1.Toleration{all}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := append([]corev1.Toleration(nil), tt.first...)
			if diff := cmp.Diff(tt.want, Merge(tt.first, tt.second)); diff != "" {
				t.Errorf("Merge (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(first, tt.first); diff != "" {
				t.Errorf("Merge changed its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestAllowed(t *testing.T) {
	tests := []struct {
		name          string
		ts, whitelist []corev1.Toleration
		want          bool
	}{
		{name: "empty whitelist", ts: []corev1.Toleration{bar}, want: true},
		{name: "no tolerations", whitelist: []corev1.Toleration{fooNS}, want: true},
		{name: "covered", ts: []corev1.Toleration{fooBar, fooNS}, whitelist: []corev1.Toleration{fooNS}, want: true},
		{name: "one not covered", ts: []corev1.Toleration{fooBar, bar}, whitelist: []corev1.Toleration{fooNS}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Allowed(tt.ts, tt.whitelist); got != tt.want {
				t.Errorf("Allowed = %v, want %v", got, tt.want)
			}
		})
	}
}
