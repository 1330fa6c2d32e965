package authz

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/audit"
	"github.com/portcullis/portcullis/internal/request"
)

// The impersonation headers of the Kubernetes API.
const (
	headerUser        = "Impersonate-User"
	headerUID         = "Impersonate-Uid"
	headerGroup       = "Impersonate-Group"
	headerExtraPrefix = "Impersonate-Extra-"
)

// Impersonation acts as the user named by the Impersonate-* headers once
// the requester may impersonate it, as kube-apiserver 1.37 does with
// ConstrainedImpersonation (on by default): the constrained modes are
// tried first (associated-node, arbitrary-node, serviceaccount,
// user-info: verb impersonate-on:<mode>:<verb> on the request itself, then
// impersonate:<mode> on each part of the user in authentication.k8s.io),
// then the legacy verb impersonate. The first refusal is the answer when
// no mode allows; the mode that last worked for a requester is tried first,
// so that refusal can depend on history, as it does in kube-apiserver.
// Attempts and their authorization checks are counted in kube-apiserver's
// apiserver_impersonation_* metrics when reg is not nil.
func Impersonation(next http.Handler, az Authorizer, out ErrorWriter, reg prometheus.Registerer) (http.Handler, error) {
	m, err := newImpersonationMetrics(reg)
	if err != nil {
		return nil, err
	}
	t := &impersonationTracker{az: m.authorizer(az), results: &resultCache{entries: map[string]cached{}}, last: map[string]int{}}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		st := request.StateFrom(r.Context())
		wanted, err := impersonationHeaders(r.Header)
		if err != nil {
			out.Error(w, r, err)
			return
		}
		if wanted == nil {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		got, mode, err := t.impersonate(r.Context(), wanted, AttributesFor(st.Info, st.User))
		if err != nil {
			m.attempt("", "denied", start)
			out.Error(w, r, err)
			return
		}
		if mode == "" {
			mode = "legacy"
		}
		m.attempt(mode, "allowed", start)
		audit.RecorderFrom(r.Context()).SetImpersonatedUser(got)
		st.AddStep(request.Step{Stage: request.StageAuthentication, Name: "impersonation (" + mode + ")", Outcome: "authenticated",
			Detail: request.DescribeUser(got), Micros: request.Since(start)})
		st.User = got
		next.ServeHTTP(w, r)
	}), nil
}

// impersonationMetrics are kube-apiserver's apiserver_impersonation_*
// series; the zero value records nothing.
type impersonationMetrics struct {
	attempts, checks        *prometheus.CounterVec
	attemptSecs, checksSecs *prometheus.HistogramVec
}

func newImpersonationMetrics(reg prometheus.Registerer) (impersonationMetrics, error) {
	var m impersonationMetrics
	if reg == nil {
		return m, nil
	}
	labels := []string{"mode", "decision"}
	buckets := prometheus.ExponentialBuckets(0.001, 2, 15)
	m.attempts = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "apiserver_impersonation_attempts_total",
		Help: "[ALPHA] Total number of impersonation attempts split by mode and decision."}, labels)
	m.attemptSecs = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "apiserver_impersonation_attempts_duration_seconds",
		Help: "[ALPHA] Latency of impersonation attempts in seconds split by mode and decision.", Buckets: buckets}, labels)
	m.checks = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "apiserver_impersonation_authorization_attempts_total",
		Help: "[ALPHA] Total number of authorization checks made by the impersonation handler split by mode and decision."}, labels)
	m.checksSecs = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "apiserver_impersonation_authorization_attempts_duration_seconds",
		Help: "[ALPHA] Latency of authorization checks made by the impersonation handler in seconds split by mode and decision.", Buckets: buckets}, labels)
	for _, c := range []prometheus.Collector{m.attempts, m.attemptSecs, m.checks, m.checksSecs} {
		if err := reg.Register(c); err != nil {
			return m, fmt.Errorf("impersonation metrics: %w", err)
		}
	}
	return m, nil
}

func (m impersonationMetrics) attempt(mode, decision string, start time.Time) {
	if m.attempts == nil {
		return
	}
	m.attempts.WithLabelValues(mode, decision).Inc()
	m.attemptSecs.WithLabelValues(mode, decision).Observe(time.Since(start).Seconds())
}

// authorizer counts every check made through az by the mode its verb names.
func (m impersonationMetrics) authorizer(az Authorizer) Authorizer {
	if m.checks == nil {
		return az
	}
	return authorizer.AuthorizerFunc(func(ctx context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		start := time.Now()
		d, reason, err := az.Authorize(ctx, a)
		decision := "denied"
		if d == authorizer.DecisionAllow {
			decision = "allowed"
		}
		mode := modeOfVerb(a.GetVerb())
		m.checks.WithLabelValues(mode, decision).Inc()
		m.checksSecs.WithLabelValues(mode, decision).Observe(time.Since(start).Seconds())
		return d, reason, err
	})
}

// modeOfVerb is the mode label of an impersonation check's verb.
func modeOfVerb(verb string) string {
	if verb == "impersonate" {
		return "legacy"
	}
	for _, m := range impersonationModes {
		if m.mode != "" && (verb == "impersonate:"+m.mode || strings.HasPrefix(verb, "impersonate-on:"+m.mode+":")) {
			return m.mode
		}
	}
	return "unknown"
}

// impersonationHeaders reads the user the headers ask for, exactly as
// given, and removes the headers; nil means no impersonation.
func impersonationHeaders(h http.Header) (*user.DefaultInfo, error) {
	wanted := &user.DefaultInfo{Name: h.Get(headerUser), UID: h.Get(headerUID)}
	hasGroups, hasExtra := false, false
	for _, g := range h[headerGroup] {
		hasGroups = true
		wanted.Groups = append(wanted.Groups, g)
	}
	for k, vs := range h {
		if !strings.HasPrefix(k, headerExtraPrefix) {
			continue
		}
		hasExtra = true
		if len(vs) == 0 {
			continue
		}
		key := strings.ToLower(k[len(headerExtraPrefix):])
		if unescaped, err := url.PathUnescape(key); err == nil {
			key = unescaped
		}
		if wanted.Extra == nil {
			wanted.Extra = map[string][]string{}
		}
		wanted.Extra[key] = append(wanted.Extra[key], vs...)
	}
	if wanted.Name == "" {
		if wanted.UID != "" || hasGroups || hasExtra {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("requested %#v without impersonating a user name", wanted))
		}
		return nil, nil
	}
	for k := range h {
		if k == headerUser || k == headerUID || k == headerGroup || strings.HasPrefix(k, headerExtraPrefix) {
			h.Del(k)
		}
	}
	return wanted, nil
}

// impersonationTracker holds the modes and which one last worked for each
// requester.
type impersonationTracker struct {
	az Authorizer
	// results remembers, for a few seconds, whom the constrained modes
	// allowed, as kube-apiserver's caches do (a repeated request is not
	// authorized again, which its metrics show).
	results *resultCache

	mu   sync.Mutex
	last map[string]int
}

// maxRemembered bounds the requesters whose last mode is remembered.
const maxRemembered = 10000

func (t *impersonationTracker) impersonate(ctx context.Context, wanted *user.DefaultInfo, attrs authorizer.Attributes) (user.Info, string, error) {
	requestor := attrs.GetUser().GetName()
	t.mu.Lock()
	first, remembered := t.last[requestor]
	t.mu.Unlock()
	var firstErr error
	if remembered {
		u, err := impersonationModes[first].check(ctx, t.az, t.results, wanted, attrs)
		if err == nil && u != nil {
			return u, impersonationModes[first].mode, nil
		}
		firstErr = err
	}
	for i, m := range impersonationModes {
		if remembered && i == first {
			continue
		}
		u, err := m.check(ctx, t.az, t.results, wanted, attrs)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if u == nil {
			continue
		}
		t.mu.Lock()
		if len(t.last) >= maxRemembered {
			clear(t.last)
		}
		t.last[requestor] = i
		t.mu.Unlock()
		return u, m.mode, nil
	}
	if firstErr != nil {
		return nil, "", firstErr
	}
	// Unreachable while the legacy mode applies to everyone; fail closed.
	return nil, "", apierrors.NewInternalError(fmt.Errorf("all impersonation modes failed"))
}

// impersonationMode is one way of being allowed to impersonate: mode ""
// is the legacy verb impersonate.
type impersonationMode struct {
	mode string
	// applies says whether the mode can impersonate wanted for requestor
	// at all; a mode that does not apply neither allows nor refuses.
	applies func(wanted *user.DefaultInfo, requestor user.Info) bool
}

var impersonationModes = []impersonationMode{
	{mode: "associated-node", applies: func(w *user.DefaultInfo, r user.Info) bool {
		return onlyUsername(w) && associatedNode(r, w.Name)
	}},
	{mode: "arbitrary-node", applies: func(w *user.DefaultInfo, _ user.Info) bool {
		_, ok := nodeUsername(w.Name)
		return onlyUsername(w) && ok
	}},
	{mode: "serviceaccount", applies: func(w *user.DefaultInfo, _ user.Info) bool {
		_, _, ok := serviceAccountUsername(w.Name)
		return onlyUsername(w) && ok
	}},
	{mode: "user-info", applies: func(w *user.DefaultInfo, _ user.Info) bool {
		_, node := nodeUsername(w.Name)
		_, _, sa := serviceAccountUsername(w.Name)
		return !node && !sa
	}},
	{mode: "", applies: func(*user.DefaultInfo, user.Info) bool { return true }},
}

func (m impersonationMode) check(ctx context.Context, az Authorizer, results *resultCache, wanted *user.DefaultInfo, attrs authorizer.Attributes) (user.Info, error) {
	requestor := attrs.GetUser()
	if !m.applies(wanted, requestor) {
		return nil, nil
	}
	verb := "impersonate"
	constrained := m.mode != ""
	if constrained {
		verb = "impersonate:" + m.mode
	}
	// The constrained modes remember whom they allowed: for this very
	// request (outer) and, once impersonate-on passed, for any request
	// (inner). The associated-node mode's keys are its own; it does not.
	var outer, inner string
	if constrained && m.mode != "associated-node" && results != nil {
		outer = m.mode + "\x00request\x00" + cacheKey(wanted, requestor, attrs)
		inner = m.mode + "\x00user\x00" + cacheKey(wanted, requestor, nil)
		if u := results.get(outer); u != nil {
			return u, nil
		}
	}
	if m.mode == "associated-node" {
		// The checks see the requester's extra keys, not their values, and
		// any node name: what is checked is the association, made above.
		az = associatedNodeAuthorizer{az}
	}
	if constrained {
		if err := checkImpersonation(ctx, az, impersonateOn{mode: m.mode, Attributes: attrs}); err != nil {
			return nil, err
		}
	}
	if inner != "" {
		if u := results.get(inner); u != nil {
			results.set(outer, u)
			return u, nil
		}
	}
	// The user and group checks are in authentication.k8s.io for the
	// constrained modes, in the core group for the legacy verb.
	group, version := "", "v1"
	if constrained {
		group = "authentication.k8s.io"
	}
	record := func(resource, name string) authorizer.AttributesRecord {
		return authorizer.AttributesRecord{User: requestor, Verb: verb, APIGroup: group, APIVersion: version, Resource: resource, Name: name, ResourceRequest: true}
	}
	actual := *wanted

	ua := record("users", wanted.Name)
	if name, ok := nodeUsername(wanted.Name); ok && constrained {
		ua.Resource, ua.Name = "nodes", name
		if len(wanted.Groups) != 0 {
			return nil, Forbidden(ua, fmt.Sprintf("when impersonating a node, cannot impersonate groups %q", wanted.Groups))
		}
		actual.Groups = []string{user.NodesGroup}
	}
	if ns, name, ok := serviceAccountUsername(wanted.Name); ok {
		ua.Resource, ua.Namespace, ua.Name = "serviceaccounts", ns, name
		if constrained && len(wanted.Groups) != 0 {
			return nil, Forbidden(ua, fmt.Sprintf("when impersonating a service account, cannot impersonate groups %q", wanted.Groups))
		}
		if len(wanted.Groups) == 0 {
			actual.Groups = serviceaccount.MakeGroupNames(ns)
		}
	}
	if err := checkImpersonation(ctx, az, ua); err != nil {
		return nil, err
	}

	if wanted.UID != "" {
		a := record("uids", wanted.UID)
		a.APIGroup = "authentication.k8s.io"
		if err := checkImpersonation(ctx, az, a); err != nil {
			return nil, err
		}
	}

	if len(wanted.Groups) > 0 {
		ga := record("groups", "")
		if constrained {
			if slices.Contains(wanted.Groups, "") {
				return nil, Forbidden(ga, "impersonating the empty string group is not allowed")
			}
			if slices.Contains(wanted.Groups, user.SystemPrivilegedGroup) {
				ga.Name = user.SystemPrivilegedGroup
				return nil, Forbidden(ga, "impersonating the system:masters group is not allowed")
			}
		}
		all := false
		if constrained && len(wanted.Groups) >= manyChecks {
			ga.Name = "*"
			all = checkImpersonation(ctx, az, ga) == nil
		}
		for _, g := range wanted.Groups {
			if all {
				break
			}
			ga.Name = g
			if err := checkImpersonation(ctx, az, ga); err != nil {
				return nil, err
			}
		}
	}

	if len(wanted.Extra) > 0 {
		ea := record("userextras", "")
		ea.APIGroup = "authentication.k8s.io"
		if constrained {
			if err := validateImpersonatedExtra(wanted.Extra); err != nil {
				return nil, Forbidden(ea, err.Error())
			}
		}
		all := false
		if constrained && largeExtra(wanted.Extra) {
			ea.Subresource, ea.Name = "*", "*"
			all = checkImpersonation(ctx, az, ea) == nil
		}
		for key, values := range wanted.Extra {
			if all {
				break
			}
			ea.Subresource = key
			for _, v := range values {
				ea.Name = v
				if err := checkImpersonation(ctx, az, ea); err != nil {
					return nil, err
				}
			}
		}
	}

	if actual.Name == user.Anonymous {
		actual.Groups = withGroup(actual.Groups, user.AllUnauthenticated)
	} else if !slices.Contains(actual.Groups, user.AllUnauthenticated) {
		actual.Groups = withGroup(actual.Groups, user.AllAuthenticated)
	}
	if inner != "" {
		results.set(inner, &actual)
		results.set(outer, &actual)
	}
	return &actual, nil
}

// resultTTL is how long an allowed impersonation is remembered, as
// kube-apiserver remembers it (the token success cache's TTL).
const resultTTL = 10 * time.Second

// resultCache maps keys to impersonated users for resultTTL.
type resultCache struct {
	mu      sync.Mutex
	entries map[string]cached
}

type cached struct {
	user    *user.DefaultInfo
	expires time.Time
}

func (c *resultCache) get(key string) user.Info {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || time.Now().After(e.expires) {
		return nil
	}
	return e.user
}

func (c *resultCache) set(key string, u user.Info) {
	du, ok := u.(*user.DefaultInfo)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if len(c.entries) >= maxRemembered {
		for k, e := range c.entries {
			if now.After(e.expires) {
				delete(c.entries, k)
			}
		}
		if len(c.entries) >= maxRemembered {
			clear(c.entries)
		}
	}
	c.entries[key] = cached{user: du, expires: now.Add(resultTTL)}
}

// cacheKey identifies the wanted user, the requester and, unless attrs is
// nil, the request.
func cacheKey(wanted *user.DefaultInfo, requestor user.Info, attrs authorizer.Attributes) string {
	type userKey struct {
		Name, UID string
		Groups    []string
		Extra     map[string][]string
	}
	k := struct {
		Wanted, Requestor userKey
		Request           []any
	}{
		Wanted:    userKey{wanted.Name, wanted.UID, wanted.Groups, wanted.Extra},
		Requestor: userKey{requestor.GetName(), requestor.GetUID(), requestor.GetGroups(), requestor.GetExtra()},
	}
	if attrs != nil {
		fs, _ := attrs.GetFieldSelector()
		ls, _ := attrs.GetLabelSelector()
		k.Request = []any{attrs.GetVerb(), attrs.IsReadOnly(), attrs.GetNamespace(), attrs.GetResource(), attrs.GetSubresource(),
			attrs.GetName(), attrs.GetAPIGroup(), attrs.GetAPIVersion(), attrs.IsResourceRequest(), attrs.GetPath(), fmt.Sprint(fs), fmt.Sprint(ls)}
	}
	b, _ := json.Marshal(k)
	return string(b)
}

// manyChecks is where kube-apiserver tries one wildcard check before
// checking groups or extra values one by one.
const manyChecks = 4

func largeExtra(extra map[string][]string) bool {
	if len(extra) >= manyChecks {
		return true
	}
	n := 0
	for _, vs := range extra {
		n += len(vs)
	}
	return n >= manyChecks
}

func validateImpersonatedExtra(extra map[string][]string) error {
	fp := field.NewPath("extra", "key")
	for key, values := range extra {
		if key == "" {
			return fmt.Errorf("impersonating the empty string key in extra is not allowed")
		}
		if err := utilvalidation.IsDomainPrefixedPath(fp, key).ToAggregate(); err != nil {
			return fmt.Errorf("impersonating an invalid key in extra is not allowed: %w", err)
		}
		if key != strings.ToLower(key) {
			return fmt.Errorf("impersonating a non-lowercase key in extra is not allowed: %q", key)
		}
		if len(values) == 0 {
			return fmt.Errorf("impersonating empty values in extra is not allowed")
		}
		if slices.Contains(values, "") {
			return fmt.Errorf("impersonating the empty string value in extra is not allowed")
		}
	}
	return nil
}

// checkImpersonation is nil when az allows attrs, else the 403 naming them.
func checkImpersonation(ctx context.Context, az Authorizer, attrs authorizer.Attributes) error {
	d, reason, err := az.Authorize(ctx, attrs)
	if d == authorizer.DecisionAllow {
		return nil
	}
	if apierrors.IsForbidden(err) {
		return err
	}
	msg := reason
	switch {
	case err != nil && reason != "":
		msg = fmt.Sprintf("%v: %s", err, reason)
	case err != nil:
		msg = err.Error()
	}
	return Forbidden(attrs, msg)
}

// impersonateOn is the request's attributes with the verb
// impersonate-on:<mode>:<verb>.
type impersonateOn struct {
	mode string
	authorizer.Attributes
}

func (i impersonateOn) GetVerb() string {
	return "impersonate-on:" + i.mode + ":" + i.Attributes.GetVerb()
}

// associatedNodeAuthorizer asks with the requester's extra reduced to its
// keys and, for impersonate:associated-node, any node name.
type associatedNodeAuthorizer struct{ az Authorizer }

func (a associatedNodeAuthorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	wrapped := associatedNodeAttributes{attrs}
	if err := checkImpersonation(ctx, a.az, wrapped); err != nil {
		return authorizer.DecisionDeny, "", err
	}
	return authorizer.DecisionAllow, "", nil
}

type associatedNodeAttributes struct{ authorizer.Attributes }

func (a associatedNodeAttributes) GetUser() user.Info {
	return associatedNodeRequestor{a.Attributes.GetUser()}
}

func (a associatedNodeAttributes) GetName() string {
	if a.GetVerb() == "impersonate:associated-node" {
		return "*"
	}
	return a.Attributes.GetName()
}

type associatedNodeRequestor struct{ user.Info }

func (r associatedNodeRequestor) GetExtra() map[string][]string {
	keys := make([]string, 0, len(r.Info.GetExtra()))
	for k := range r.Info.GetExtra() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return map[string][]string{"authentication.kubernetes.io/associated-node-keys": keys}
}

func onlyUsername(u *user.DefaultInfo) bool {
	return u.UID == "" && len(u.Groups) == 0 && len(u.Extra) == 0
}

// nodeUsername is the node of system:node:<name> when name is a valid node name.
func nodeUsername(name string) (string, bool) {
	const prefix = "system:node:"
	if !strings.HasPrefix(name, prefix) {
		return "", false
	}
	node := strings.TrimPrefix(name, prefix)
	if len(validation.NameIsDNSSubdomain(node, false)) != 0 {
		return "", false
	}
	return node, true
}

// associatedNode says whether requestor is a service account whose token
// is bound to the node named by username (authentication.kubernetes.io/node-name).
func associatedNode(requestor user.Info, username string) bool {
	node, ok := nodeUsername(username)
	if !ok {
		return false
	}
	if _, _, ok := serviceAccountUsername(requestor.GetName()); !ok {
		return false
	}
	v := requestor.GetExtra()[serviceaccount.NodeNameKey]
	return len(v) == 1 && v[0] == node
}

func serviceAccountUsername(name string) (string, string, bool) {
	ns, sa, err := serviceaccount.SplitUsername(name)
	return ns, sa, err == nil
}

func withGroup(groups []string, g string) []string {
	if slices.Contains(groups, g) {
		return groups
	}
	return append(append(make([]string, 0, len(groups)+1), groups...), g)
}
