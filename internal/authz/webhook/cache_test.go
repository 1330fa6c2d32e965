package webhook

import (
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

func TestCacheHits(t *testing.T) {
	e := newEnv(t, nil)
	steps := []struct {
		name      string
		attrs     authorizer.AttributesRecord
		wantCalls int64
	}{
		{"first request asks", podsList("alice"), 1},
		{"same request is cached", podsList("alice"), 1},
		{"another user asks", podsList("bob"), 2},
		{"another verb asks", func() authorizer.AttributesRecord { a := podsList("alice"); a.Verb = "watch"; return a }(), 3},
		{"another group asks", func() authorizer.AttributesRecord {
			a := podsList("alice")
			a.User = &fakeUser{name: "alice", uid: "uid-alice", groups: []string{"dev"}}
			return a
		}(), 4},
		{"non-resource asks", healthz("alice"), 5},
		{"non-resource is cached", healthz("alice"), 5},
	}
	for _, s := range steps {
		d, _, err := e.az.Authorize(background, s.attrs)
		if d != authorizer.DecisionAllow || err != nil {
			t.Fatalf("%s: got (%v, %v)", s.name, d, err)
		}
		if got := e.hook.calls.Load(); got != s.wantCalls {
			t.Fatalf("%s: %d calls, want %d", s.name, got, s.wantCalls)
		}
	}
}

func TestCacheTTL(t *testing.T) {
	tests := []struct {
		name            string
		status          authorizationv1.SubjectAccessReviewStatus
		authorizedTTL   time.Duration
		unauthorizedTTL time.Duration
		stillCached     time.Duration // a request this long after is a hit
		expired         time.Duration // and one this long after is a miss
	}{
		{"allowed lives authorizedTTL", authorizationv1.SubjectAccessReviewStatus{Allowed: true}, 5 * time.Minute, 30 * time.Second, 5 * time.Minute, 5*time.Minute + time.Second},
		{"denied lives unauthorizedTTL", authorizationv1.SubjectAccessReviewStatus{Denied: true}, 5 * time.Minute, 30 * time.Second, 30 * time.Second, 31 * time.Second},
		{"no opinion lives unauthorizedTTL", authorizationv1.SubjectAccessReviewStatus{}, 5 * time.Minute, 30 * time.Second, 30 * time.Second, 31 * time.Second},
		{"allowed not cached", authorizationv1.SubjectAccessReviewStatus{Allowed: true}, 0, 30 * time.Second, -1, 0},
		{"denied not cached", authorizationv1.SubjectAccessReviewStatus{Denied: true}, 5 * time.Minute, 0, -1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, func(c *Config) {
				c.AuthorizedTTL = tt.authorizedTTL
				c.UnauthorizedTTL = tt.unauthorizedTTL
			})
			e.hook.setAnswer(status(tt.status))
			start := e.clock.Now()
			ask := func(at time.Duration) int64 {
				e.clock.SetTime(start.Add(at))
				_, _, _ = e.az.Authorize(background, podsList("alice"))
				return e.hook.calls.Load()
			}
			if got := ask(0); got != 1 {
				t.Fatalf("first: %d calls", got)
			}
			if tt.stillCached >= 0 {
				if got := ask(tt.stillCached); got != 1 {
					t.Fatalf("after %v: %d calls, want a cache hit", tt.stillCached, got)
				}
			}
			if got := ask(tt.expired); got != 2 {
				t.Fatalf("after %v: %d calls, want a miss", tt.expired, got)
			}
		})
	}
}

func TestLargeRequestsNotCached(t *testing.T) {
	e := newEnv(t, nil)
	a := podsList("alice")
	a.Name = strings.Repeat("n", maxCacheableAttrSize)
	for range 2 {
		if d, _, err := e.az.Authorize(background, a); d != authorizer.DecisionAllow || err != nil {
			t.Fatalf("got (%v, %v)", d, err)
		}
	}
	if got := e.hook.calls.Load(); got != 2 {
		t.Fatalf("%d calls, want 2", got)
	}
}

// TestCacheKeyDistinct: specs that differ anywhere have different keys.
func TestCacheKeyDistinct(t *testing.T) {
	ra := func(mut func(*authorizationv1.ResourceAttributes)) *authorizationv1.ResourceAttributes {
		r := &authorizationv1.ResourceAttributes{Verb: "get", Resource: "pods"}
		if mut != nil {
			mut(r)
		}
		return r
	}
	specs := map[string]authorizationv1.SubjectAccessReviewSpec{
		"empty":              {},
		"user ab":            {User: "ab"},
		"user a uid b":       {User: "a", UID: "b"},
		"groups a,b":         {Groups: []string{"a,b"}},
		"groups a b":         {Groups: []string{"a", "b"}},
		"groups ab":          {Groups: []string{"ab"}},
		"extra k=[v]":        {Extra: map[string]authorizationv1.ExtraValue{"k": {"v"}}},
		"extra k=[] v=[]":    {Extra: map[string]authorizationv1.ExtraValue{"k": {}, "v": {}}},
		"extra kv=[]":        {Extra: map[string]authorizationv1.ExtraValue{"kv": {}}},
		"resource":           {ResourceAttributes: ra(nil)},
		"resource ns":        {ResourceAttributes: ra(func(r *authorizationv1.ResourceAttributes) { r.Namespace = "x" })},
		"resource name":      {ResourceAttributes: ra(func(r *authorizationv1.ResourceAttributes) { r.Name = "x" })},
		"resource sub":       {ResourceAttributes: ra(func(r *authorizationv1.ResourceAttributes) { r.Subresource = "x" })},
		"resource version":   {ResourceAttributes: ra(func(r *authorizationv1.ResourceAttributes) { r.Version = "x" })},
		"resource group":     {ResourceAttributes: ra(func(r *authorizationv1.ResourceAttributes) { r.Group = "x" })},
		"field selector In":  {ResourceAttributes: ra(func(r *authorizationv1.ResourceAttributes) { r.FieldSelector = fieldSel(metav1.FieldSelectorOpIn) })},
		"field selector Not": {ResourceAttributes: ra(func(r *authorizationv1.ResourceAttributes) { r.FieldSelector = fieldSel(metav1.FieldSelectorOpNotIn) })},
		"label selector": {ResourceAttributes: ra(func(r *authorizationv1.ResourceAttributes) {
			r.LabelSelector = &authorizationv1.LabelSelectorAttributes{Requirements: []metav1.LabelSelectorRequirement{{Key: "a", Operator: metav1.LabelSelectorOpExists}}}
		})},
		"non-resource":      {NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/x", Verb: "get"}},
		"non-resource path": {NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: "/xget"}},
	}
	seen := map[string]string{}
	for name, s := range specs {
		k := cacheKey(&s)
		if other, dup := seen[k]; dup {
			t.Errorf("%q and %q share the key %q", name, other, k)
		}
		seen[k] = name
	}
}

func fieldSel(op metav1.FieldSelectorOperator) *authorizationv1.FieldSelectorAttributes {
	return &authorizationv1.FieldSelectorAttributes{Requirements: []metav1.FieldSelectorRequirement{{Key: "spec.nodeName", Operator: op, Values: []string{"n"}}}}
}

// fakeUser is a user.Info without extra.
type fakeUser struct {
	name, uid string
	groups    []string
}

func (u *fakeUser) GetName() string               { return u.name }
func (u *fakeUser) GetUID() string                { return u.uid }
func (u *fakeUser) GetGroups() []string           { return u.groups }
func (u *fakeUser) GetExtra() map[string][]string { return nil }
