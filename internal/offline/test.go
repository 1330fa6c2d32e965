package offline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/server"
)

// Test is an AdmissionTest document: a server configuration, the cluster
// state and cases to run against them, in order, with what each must
// come to. Paths are relative to the file's directory.
type Test struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ObjectMeta `json:"metadata,omitempty"`
	// Flags are `portcullis serve` flags of the chain (--name=value) for
	// this test's server, after the command line's.
	Flags []string `json:"flags,omitempty"`
	// State are manifest files and directories of the cluster state.
	State []string `json:"state,omitempty"`
	// Objects are more state, inline.
	Objects []*unstructured.Unstructured `json:"objects,omitempty"`
	// WebhookAnswers are recorded AdmissionReview files by webhook name.
	WebhookAnswers map[string]string `json:"webhookAnswers,omitempty"`
	Cases          []Case            `json:"cases"`

	// File and Dir are where the test was read from.
	File string `json:"-"`
	Dir  string `json:"-"`
}

// Case is one request of a test and its expected outcome.
type Case struct {
	Request `json:",inline"`
	// ObjectFile and OldObjectFile give Object and OldObject from a file.
	ObjectFile    string `json:"objectFile,omitempty"`
	OldObjectFile string `json:"oldObjectFile,omitempty"`
	Expect        Expect `json:"expect"`
}

// Expect is what a case must come to; unset fields are not checked.
type Expect struct {
	// Allowed: admitted (a 2xx answer) or denied.
	Allowed *bool `json:"allowed,omitempty"`
	// Code is the HTTP status code.
	Code int `json:"code,omitempty"`
	// Reason is the Status reason of a denial (Forbidden, Invalid...).
	Reason string `json:"reason,omitempty"`
	// Message must be contained in the denial's message; MessageRegex
	// must match it.
	Message      string `json:"message,omitempty"`
	MessageRegex string `json:"messageRegex,omitempty"`
	// Warnings must each be contained in one of the warnings answered.
	Warnings []string `json:"warnings,omitempty"`
	// NoWarnings: none may be answered.
	NoWarnings bool `json:"noWarnings,omitempty"`
	// Fields are values of the final object by dotted path
	// (metadata.labels.team, spec.containers.0.image); null: absent.
	Fields map[string]any `json:"fields,omitempty"`
	// Annotations are audit annotations: each value must contain the
	// given text.
	Annotations map[string]string `json:"annotations,omitempty"`
}

// TestKind is the kind of test documents.
const TestKind = "AdmissionTest"

// ReadTests reads the AdmissionTest documents of files and directories
// (recursively); other documents are skipped, so that a test directory can
// hold its state too.
func ReadTests(paths []string) ([]*Test, error) {
	var out []*Test
	err := eachManifestFile(paths, nil, func(f string, objs []*unstructured.Unstructured) error {
		for _, obj := range objs {
			if obj.GetAPIVersion() != APIVersion || obj.GetKind() != TestKind {
				continue
			}
			t, err := decodeTest(obj)
			if err != nil {
				return fmt.Errorf("%s: %w", f, err)
			}
			t.File, t.Dir = f, filepath.Dir(f)
			out = append(out, t)
		}
		return nil
	})
	return out, err
}

func decodeTest(obj *unstructured.Unstructured) (*Test, error) {
	raw, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, err
	}
	var t Test
	if err := yaml.UnmarshalStrict(raw, &t); err != nil {
		return nil, fmt.Errorf("AdmissionTest %q: %w", obj.GetName(), err)
	}
	if t.Metadata.Name == "" {
		return nil, errors.New("AdmissionTest: metadata.name is required")
	}
	if len(t.Cases) == 0 {
		return nil, fmt.Errorf("AdmissionTest %q: no cases", t.Metadata.Name)
	}
	for i := range t.Cases {
		c := &t.Cases[i]
		if c.Name == "" {
			return nil, fmt.Errorf("AdmissionTest %q: cases[%d].name is required", t.Metadata.Name, i)
		}
		if c.Expect.MessageRegex != "" {
			if _, err := regexp.Compile(c.Expect.MessageRegex); err != nil {
				return nil, fmt.Errorf("AdmissionTest %q: case %q: expect.messageRegex: %w", t.Metadata.Name, c.Name, err)
			}
		}
	}
	return &t, nil
}

// path resolves a path of the test file.
func (t *Test) path(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(t.Dir, p)
}

// Setup is the test's run: cfg, its state and webhook answers.
func (t *Test) Setup(cfg server.Config) (Setup, error) {
	paths := make([]string, len(t.State))
	for i, p := range t.State {
		paths[i] = t.path(p)
	}
	state, err := ReadManifests(paths, nil)
	if err != nil {
		return Setup{}, fmt.Errorf("state: %w", err)
	}
	state = append(state, t.Objects...)
	answers := map[string][]byte{}
	for name, f := range t.WebhookAnswers {
		b, err := os.ReadFile(t.path(f))
		if err != nil {
			return Setup{}, fmt.Errorf("webhookAnswers %s: %w", name, err)
		}
		if answers[name], err = utilyaml.ToJSON(b); err != nil {
			return Setup{}, fmt.Errorf("webhookAnswers %s: %w", name, err)
		}
	}
	return Setup{Config: cfg, State: state, WebhookAnswers: answers}, nil
}

// CaseReport is how one case went.
type CaseReport struct {
	Name string `json:"name"`
	// Failures are the expectations not met; Error a case that could not
	// run.
	Failures []string `json:"failures,omitempty"`
	Error    string   `json:"error,omitempty"`
	Result   *Result  `json:"result,omitempty"`
}

// Passed reports a case that ran and met every expectation.
func (c *CaseReport) Passed() bool { return c.Error == "" && len(c.Failures) == 0 }

// TestReport is how one test went.
type TestReport struct {
	Name string `json:"name"`
	File string `json:"file"`
	// Error is a test that could not start (its configuration or state).
	Error    string        `json:"error,omitempty"`
	Cases    []CaseReport  `json:"cases,omitempty"`
	Duration time.Duration `json:"duration"`
}

// Failed counts the cases that did not pass (all of them when the test
// could not start).
func (r *TestReport) Failed() int {
	if r.Error != "" {
		return max(1, len(r.Cases))
	}
	n := 0
	for i := range r.Cases {
		if !r.Cases[i].Passed() {
			n++
		}
	}
	return n
}

// RunTest starts the test's server from setup and runs its cases in order.
func RunTest(ctx context.Context, t *Test, setup Setup) *TestReport {
	start := time.Now()
	rep := &TestReport{Name: t.Metadata.Name, File: t.File}
	defer func() { rep.Duration = time.Since(start) }()
	runner, err := Start(ctx, setup)
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	defer runner.Close()
	for i := range t.Cases {
		rep.Cases = append(rep.Cases, runCase(ctx, runner, t, &t.Cases[i]))
	}
	return rep
}

func runCase(ctx context.Context, runner *Runner, t *Test, c *Case) CaseReport {
	rep := CaseReport{Name: c.Name}
	req := c.Request
	for _, f := range []struct {
		file string
		into **unstructured.Unstructured
	}{{c.ObjectFile, &req.Object}, {c.OldObjectFile, &req.OldObject}} {
		if f.file == "" {
			continue
		}
		objs, err := ReadManifests([]string{t.path(f.file)}, nil)
		if err != nil {
			rep.Error = err.Error()
			return rep
		}
		if len(objs) != 1 {
			rep.Error = fmt.Sprintf("%s: holds %d objects, want 1", f.file, len(objs))
			return rep
		}
		*f.into = objs[0]
	}
	res, err := runner.Run(ctx, req)
	if err != nil {
		rep.Error = err.Error()
		return rep
	}
	rep.Result = res
	rep.Failures = c.Expect.check(res)
	return rep
}

// check returns every expectation res does not meet.
func (e *Expect) check(res *Result) []string {
	var out []string
	failf := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	message, reason := "", ""
	if res.Status != nil {
		message, reason = res.Status.Message, string(res.Status.Reason)
	}
	if e.Allowed != nil && *e.Allowed != res.Allowed {
		if res.Allowed {
			failf("want denied, got admitted (%d)", res.Code)
		} else {
			failf("want admitted, got denied: %d %s", res.Code, message)
		}
	}
	if e.Code != 0 && e.Code != res.Code {
		failf("code: want %d, got %d %s", e.Code, res.Code, message)
	}
	if e.Reason != "" && e.Reason != reason {
		failf("reason: want %s, got %q", e.Reason, reason)
	}
	if e.Message != "" && !strings.Contains(message, e.Message) {
		failf("message: want it to contain %q, got %q", e.Message, message)
	}
	if e.MessageRegex != "" && !regexp.MustCompile(e.MessageRegex).MatchString(message) {
		failf("message: want it to match %q, got %q", e.MessageRegex, message)
	}
	for _, w := range e.Warnings {
		if !containsAny(res.Warnings, w) {
			failf("warnings: want one containing %q, got %q", w, res.Warnings)
		}
	}
	if e.NoWarnings && len(res.Warnings) > 0 {
		failf("warnings: want none, got %q", res.Warnings)
	}
	for _, k := range sortedKeys(e.Annotations) {
		want := e.Annotations[k]
		got, ok := res.Annotations[k]
		if !ok || !strings.Contains(got, want) {
			failf("annotation %s: want it to contain %q, got %q", k, want, got)
		}
	}
	if len(e.Fields) > 0 && res.Object == nil {
		failf("fields: no object was answered")
		return out
	}
	for _, p := range sortedKeys(e.Fields) {
		got, ok := lookupField(res.Object, p)
		want := e.Fields[p]
		if want == nil {
			if ok {
				failf("%s: want it absent, got %s", p, jsonString(got))
			}
			continue
		}
		if !ok {
			failf("%s: want %s, absent", p, jsonString(want))
			continue
		}
		if !jsonEqual(got, want) {
			failf("%s: want %s, got %s", p, jsonString(want), jsonString(got))
		}
	}
	return out
}

func containsAny(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// lookupField follows a dotted path through maps and lists (an index).
// A key with dots is written in brackets: metadata.labels[app.kubernetes.io/name].
func lookupField(obj map[string]any, path string) (any, bool) {
	var cur any = obj
	for _, part := range splitPath(path) {
		switch v := cur.(type) {
		case map[string]any:
			next, ok := v[part]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			var i int
			if _, err := fmt.Sscanf(part, "%d", &i); err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

func splitPath(p string) []string {
	var parts []string
	for p != "" {
		if strings.HasPrefix(p, "[") {
			end := strings.Index(p, "]")
			if end < 0 {
				return append(parts, p[1:])
			}
			parts = append(parts, p[1:end])
			p = strings.TrimPrefix(p[end+1:], ".")
			continue
		}
		i := strings.IndexAny(p, ".[")
		if i < 0 {
			return append(parts, p)
		}
		parts = append(parts, p[:i])
		if p[i] == '.' {
			i++
		}
		p = p[i:]
	}
	return parts
}

// jsonEqual compares as JSON values, so that 3 from YAML equals 3 from
// the answer's JSON.
func jsonEqual(a, b any) bool {
	var x, y any
	if json.Unmarshal([]byte(jsonString(a)), &x) != nil || json.Unmarshal([]byte(jsonString(b)), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func jsonString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
