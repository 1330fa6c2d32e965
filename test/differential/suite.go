package differential

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"
)

// Suite is one scenario file: a server configuration (flags, files, users,
// fixtures) and the cases run in order against one server started with it.
type Suite struct {
	// Name is the file's base name without .yaml; goldens are keyed by it.
	Name string `json:"-"`
	// text is the file before its templates are rendered.
	text string
	// Document is the ../shared/spec document the suite exercises, for the
	// identical rate per document in docs/conformance.md.
	Document string `json:"document"`
	// Flags are given to both servers (templates: see env.vars).
	Flags []string `json:"flags,omitempty"`
	// Files are written under the suite's directory before start; a name
	// may hold slashes (static/policy.yaml). Contents are templates.
	Files map[string]string `json:"files,omitempty"`
	// Users are the identities steps act as, beside admin.
	Users map[string]User `json:"users,omitempty"`
	// Webhooks scripts the admission webhook fixture: path → rules.
	Webhooks map[string][]Rule `json:"webhooks,omitempty"`
	// Authz scripts the authorization webhook fixture: path → rules.
	Authz map[string][]Rule `json:"authz,omitempty"`
	// ReferenceControllers are kube-controller-manager controllers the
	// reference runs beside kube-apiserver, for work portcullis does in
	// process (validatingadmissionpolicy-status-controller writes a
	// policy's status.typeChecking).
	ReferenceControllers []string `json:"referenceControllers,omitempty"`
	// StartFails says the server must refuse to start with this
	// configuration; then there are no cases.
	StartFails bool `json:"startFails,omitempty"`
	// Setup runs once after start, as its own case named "setup".
	Setup []Step `json:"setup,omitempty"`
	Cases []Case `json:"cases,omitempty"`
}

// User is an identity. Exactly one of Token, Cert and JWT is set.
type User struct {
	// Token is a bearer token listed in the generated --token-auth-file.
	Token  string   `json:"token,omitempty"`
	UID    string   `json:"uid,omitempty"`
	Groups []string `json:"groups,omitempty"`
	// Cert asks for a client certificate (CN the user's name, O its groups).
	Cert bool `json:"cert,omitempty"`
	// JWT holds the claims of a token signed by the OIDC issuer fixture;
	// iss defaults to the issuer, aud to "portcullis", exp/iat to now+1h/now.
	// Numeric claims may be given as "now", "now+1h" or "now-30m".
	JWT map[string]any `json:"jwt,omitempty"`
}

// Case is a named sequence of steps whose results are compared as a whole.
type Case struct {
	Name string `json:"name"`
	// Known names a difference from kube-apiserver that stays, with the
	// reason a user would accept; the case must then still differ (a mark
	// that no longer holds fails, so marks cannot go stale).
	Known string `json:"known,omitempty"`
	Steps []Step `json:"steps"`
}

// Step is one client action. Exactly one of Path, Kubectl, Webhook, Authz,
// Metrics, Write and Remove is set.
type Step struct {
	// As is the user (default admin; "anonymous" has no credentials).
	As string `json:"as,omitempty"`

	// An HTTP request.
	Method  string                  `json:"method,omitempty"`
	Path    string                  `json:"path,omitempty"`
	Body    any                     `json:"body,omitempty"`
	RawBody string                  `json:"rawBody,omitempty"`
	Headers map[string]HeaderValues `json:"headers,omitempty"`
	// Audit records the audit event's annotations for the request.
	Audit bool `json:"audit,omitempty"`
	// Until repeats the request until its code is this (for configuration
	// that takes effect asynchronously); only the last answer is recorded.
	Until int `json:"until,omitempty"`
	// Keep lists the top-level fields of a JSON answer to record (default
	// all); "metadata.annotations" style paths pick nested ones.
	Keep []string `json:"keep,omitempty"`
	// Save remembers values of the JSON answer (name → dotted path, as in
	// Keep) for later steps of the suite, which write them as $(name): a
	// server-assigned uid that a later request must carry, for example.
	Save map[string]string `json:"save,omitempty"`

	// Kubectl is a kubectl command line (split on spaces; a YAML list for
	// arguments with spaces). Stdin is given to it.
	Kubectl any    `json:"kubectl,omitempty"`
	Stdin   string `json:"stdin,omitempty"`

	// Webhook records (and forgets) what the admission webhook fixture
	// received on this path since the last such step.
	Webhook string `json:"webhook,omitempty"`
	// Authz does the same for the authorization webhook fixture.
	Authz string `json:"authz,omitempty"`

	// Metrics records the series of these metric names (label sets and values).
	// Values of gauges named *_timestamp_seconds are recorded as <time>.
	Metrics []string `json:"metrics,omitempty"`
	// UntilSeries repeats a metrics step until one of its series contains
	// this text (for a reload whose effect is seen only in metrics).
	UntilSeries string `json:"untilSeries,omitempty"`

	// Write writes File (relative to the suite directory) with Content,
	// atomically (a temporary file outside the suite directory renamed into
	// place: one file event, never a partly written file); Remove deletes it.
	Write   string `json:"write,omitempty"`
	Remove  string `json:"remove,omitempty"`
	Content string `json:"content,omitempty"`

	// Ignore drops the step's result from the comparison (a step that only
	// prepares state whose answer is not the point, such as a cleanup).
	Ignore bool `json:"ignore,omitempty"`
}

// Rule is one scripted answer of a fixture webhook; the first rule whose
// When matches answers. An empty When matches everything.
type Rule struct {
	When Match `json:"when,omitempty"`
	// Allowed, Status (admission), Reason and Denied (authorization).
	Allowed bool           `json:"allowed,omitempty"`
	Denied  bool           `json:"denied,omitempty"`
	Reason  string         `json:"reason,omitempty"`
	Status  map[string]any `json:"status,omitempty"`
	// Patch is a JSON patch (admission), sent as patchType JSONPatch.
	Patch            []map[string]any  `json:"patch,omitempty"`
	Warnings         []string          `json:"warnings,omitempty"`
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty"`
	// Code and Raw replace the whole answer: an HTTP error or an
	// unparseable body.
	Code int    `json:"code,omitempty"`
	Raw  string `json:"raw,omitempty"`
	// Delay is how long the fixture waits before answering (a Go
	// duration: "2s"), for timeouts.
	Delay string `json:"delay,omitempty"`
}

// Match selects requests to a fixture webhook; empty fields match all.
type Match struct {
	Operation   string `json:"operation,omitempty"`
	Name        string `json:"name,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	User        string `json:"user,omitempty"`
	Verb        string `json:"verb,omitempty"`
	Resource    string `json:"resource,omitempty"`
	SubResource string `json:"subresource,omitempty"`
	// Token is a TokenReview's spec.token (the authorization fixture also
	// serves as a token authentication webhook, answering with Raw).
	Token string `json:"token,omitempty"`
}

// loadSuites reads every scenarios/*.yaml.
func loadSuites(dir string) ([]*Suite, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var suites []*Suite
	for _, p := range paths {
		s, err := loadSuite(p)
		if err != nil {
			return nil, err
		}
		suites = append(suites, s)
	}
	return suites, nil
}

// loadSuite reads a scenario file, rendering its templates with
// placeholder values to check it.
func loadSuite(path string) (*Suite, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	vars := map[string]string{}
	for _, k := range varNames {
		vars[k] = "<" + k + ">"
	}
	s, err := parseSuite(string(data), vars)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.Name = strings.TrimSuffix(filepath.Base(path), ".yaml")
	return s, nil
}

// parseSuite renders text's templates with vars and decodes the result.
func parseSuite(text string, vars map[string]string) (*Suite, error) {
	rendered, err := renderTemplate(text, vars)
	if err != nil {
		return nil, err
	}
	var s Suite
	if err := yaml.UnmarshalStrict([]byte(rendered), &s); err != nil {
		return nil, err
	}
	s.text = text
	if err := s.check(); err != nil {
		return nil, err
	}
	return &s, nil
}

// check catches mistakes in a scenario file before any server starts.
func (s *Suite) check() error {
	if !knownDocument(s.Document) {
		return fmt.Errorf("document %q: not one of report.go's documents", s.Document)
	}
	if s.StartFails != (len(s.Cases) == 0 && len(s.Setup) == 0) {
		return fmt.Errorf("startFails goes with no cases, and only with none")
	}
	for name, u := range s.Users {
		n := 0
		for _, set := range []bool{u.Token != "", u.Cert, u.JWT != nil} {
			if set {
				n++
			}
		}
		if n != 1 || name == "admin" {
			return fmt.Errorf("user %s: give exactly one of token, cert and jwt (and do not redefine admin)", name)
		}
	}
	seen := map[string]bool{"setup": true}
	for _, c := range s.Cases {
		if c.Name == "" || seen[c.Name] {
			return fmt.Errorf("case %q: missing or repeated name", c.Name)
		}
		seen[c.Name] = true
		if err := checkSteps(s, c.Steps); err != nil {
			return fmt.Errorf("case %s: %w", c.Name, err)
		}
	}
	return checkSteps(s, s.Setup)
}

func checkSteps(s *Suite, steps []Step) error {
	for i, st := range steps {
		kinds := 0
		for _, set := range []bool{st.Path != "", st.Kubectl != nil, st.Webhook != "", st.Authz != "", st.Metrics != nil, st.Write != "", st.Remove != ""} {
			if set {
				kinds++
			}
		}
		if kinds != 1 {
			return fmt.Errorf("step %d: give exactly one of path, kubectl, webhook, authz, metrics, write and remove", i+1)
		}
		// "anonymous" sends no credentials of its own (a step may give an
		// Authorization header).
		if _, ok := s.Users[st.As]; st.As != "" && st.As != "admin" && st.As != "anonymous" && !ok {
			return fmt.Errorf("step %d: unknown user %q", i+1, st.As)
		}
		if st.UntilSeries != "" && st.Metrics == nil {
			return fmt.Errorf("step %d: untilSeries without metrics", i+1)
		}
		if len(st.Save) > 0 && st.Path == "" {
			return fmt.Errorf("step %d: save without path", i+1)
		}
		if st.Path != "" && st.Method == "" {
			return fmt.Errorf("step %d: path without method", i+1)
		}
	}
	return nil
}

// scenarioCount is the number of compared cases over all suites (a suite
// that must fail to start counts as one).
func scenarioCount(suites []*Suite) int {
	n := 0
	for _, s := range suites {
		if s.StartFails {
			n++
		}
		n += len(s.Cases)
	}
	return n
}

// HeaderValues are one header's values: a string, or a list for a header
// sent several times (Impersonate-Group).
type HeaderValues []string

// UnmarshalJSON accepts a string or a list of strings.
func (h *HeaderValues) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*h = HeaderValues{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return fmt.Errorf("a header is a string or a list of strings: %w", err)
	}
	*h = many
	return nil
}
