package why

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"

	"github.com/portcullis/portcullis/internal/request"
)

// Query selects the request to explain: by audit ID, or the last final
// event that matches every field given.
type Query struct {
	AuditID   string
	User      string
	Verb      string
	Resource  string
	Namespace string
	Name      string
	// Denied selects only requests answered with an error code.
	Denied bool
}

// ErrNotFound is a log without an event the query selects.
var ErrNotFound = errors.New("no request in the audit log matches")

// Find reads audit events, one JSON object per line as kube-apiserver's
// log backend writes them, and returns the last final event (stage
// ResponseComplete or Panic) that q selects. Lines that are not events
// are skipped.
func Find(r io.Reader, q Query) (*auditv1.Event, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var found *auditv1.Event
	for sc.Scan() {
		line := sc.Bytes()
		if q.AuditID != "" && !strings.Contains(string(line), q.AuditID) {
			continue
		}
		var ev auditv1.Event
		if json.Unmarshal(line, &ev) != nil || ev.AuditID == "" {
			continue
		}
		if ev.Stage != auditv1.StageResponseComplete && ev.Stage != auditv1.StagePanic {
			continue
		}
		if q.matches(&ev) {
			found = &ev
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the audit log: %w", err)
	}
	if found == nil {
		return nil, ErrNotFound
	}
	return found, nil
}

func (q Query) matches(ev *auditv1.Event) bool {
	if q.AuditID != "" && string(ev.AuditID) != q.AuditID {
		return false
	}
	if q.User != "" && ev.User.Username != q.User && (ev.ImpersonatedUser == nil || ev.ImpersonatedUser.Username != q.User) {
		return false
	}
	if q.Verb != "" && ev.Verb != q.Verb {
		return false
	}
	ref := ev.ObjectRef
	if q.Resource != "" && (ref == nil || (ref.Resource != q.Resource && ref.Resource+"."+ref.APIGroup != q.Resource)) {
		return false
	}
	if q.Namespace != "" && (ref == nil || ref.Namespace != q.Namespace) {
		return false
	}
	if q.Name != "" && (ref == nil || ref.Name != q.Name) {
		return false
	}
	if q.Denied && (ev.ResponseStatus == nil || ev.ResponseStatus.Code < 400) {
		return false
	}
	return true
}

// Explanation is one request's decisions, as `portcullis why -o json`
// prints it.
type Explanation struct {
	AuditID  string         `json:"auditID"`
	Request  string         `json:"request"`
	User     string         `json:"user"`
	Received time.Time      `json:"received"`
	Code     int32          `json:"code,omitempty"`
	Message  string         `json:"message,omitempty"`
	Steps    []request.Step `json:"steps,omitempty"`
	// Annotations are the event's audit annotations, which the steps name.
	Annotations map[string]string `json:"annotations,omitempty"`
	// Traced is false for an event without portcullis's trace.
	Traced bool `json:"traced"`
}

// Explain turns an audit event into its explanation.
func Explain(ev *auditv1.Event) (*Explanation, error) {
	x := &Explanation{AuditID: string(ev.AuditID), Request: describe(ev), User: ev.User.Username,
		Received: ev.RequestReceivedTimestamp.Time, Annotations: map[string]string{}}
	if ev.ImpersonatedUser != nil {
		x.User += " as " + ev.ImpersonatedUser.Username
	}
	if st := ev.ResponseStatus; st != nil {
		x.Code, x.Message = st.Code, st.Message
	}
	for k, v := range ev.Annotations {
		if k == request.TraceAnnotation {
			if err := json.Unmarshal([]byte(v), &x.Steps); err != nil {
				return nil, fmt.Errorf("audit event %s: the decision trace: %w", ev.AuditID, err)
			}
			x.Traced = true
			continue
		}
		x.Annotations[k] = v
	}
	return x, nil
}

func describe(ev *auditv1.Event) string {
	ref := ev.ObjectRef
	if ref == nil {
		return ev.Verb + " " + ev.RequestURI
	}
	res := ref.Resource
	if ref.APIGroup != "" {
		res += "." + ref.APIGroup
	}
	if ref.Subresource != "" {
		res += "/" + ref.Subresource
	}
	out := ev.Verb + " " + res
	if ref.Name != "" {
		out += " " + ref.Name
	}
	if ref.Namespace != "" {
		out += " in " + ref.Namespace
	}
	return out
}

// Write prints x for people.
func (x *Explanation) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Request %s: %s by %s at %s", x.AuditID, x.Request, x.User, x.Received.UTC().Format(time.RFC3339Nano))
	if x.Code != 0 {
		fmt.Fprintf(&b, ", answered %d", x.Code)
	}
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	if err := x.WriteSteps(w); err != nil {
		return err
	}
	if x.Message != "" {
		_, err := fmt.Fprintf(w, "Answer: %d %s\n", x.Code, x.Message)
		return err
	}
	return nil
}

// WriteSteps prints x's steps, each with its parts (what each policy,
// binding and webhook decided) indented under it and the audit
// annotations it added, and the other annotations: Write without the request line and the
// answer (`portcullis admit` prints its own).
func (x *Explanation) WriteSteps(w io.Writer) error {
	var b strings.Builder
	shown := map[string]bool{}
	if !x.Traced {
		b.WriteString("  (no decision trace in this event: what kube-apiserver's annotations tell)\n")
		for _, k := range []string{"authorization.k8s.io/decision", "authorization.k8s.io/reason"} {
			if v, ok := x.Annotations[k]; ok {
				fmt.Fprintf(&b, "  %s: %s\n", k, v)
				shown[k] = true
			}
		}
	}
	stage := ""
	n := 0
	for _, s := range x.Steps {
		if s.Stage != stage {
			stage = s.Stage
			fmt.Fprintf(&b, "%s:\n", title(stage))
		}
		n++
		name := s.Name
		if s.Phase != "" {
			name += " (" + s.Phase + ")"
		}
		writeStep(&b, fmt.Sprintf("  %2d. ", n), name, &s)
		// Parts before the annotations: they say what each policy,
		// binding and webhook decided, the annotations what they recorded.
		for i := range s.Parts {
			p := &s.Parts[i]
			name := p.Rule
			if name == "" {
				name = p.Name
			}
			if p.Phase != "" && p.Phase != s.Phase {
				name += " (" + p.Phase + ")"
			}
			writeStep(&b, "        - ", name, p)
		}
		for _, k := range s.Annotations {
			if v, ok := x.Annotations[k]; ok {
				fmt.Fprintf(&b, "        %s: %s\n", k, v)
				shown[k] = true
			}
		}
	}
	var rest []string
	for k := range x.Annotations {
		if !shown[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	if len(rest) > 0 {
		b.WriteString("Other audit annotations:\n")
		for _, k := range rest {
			fmt.Fprintf(&b, "  %s: %s\n", k, x.Annotations[k])
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeStep writes one line: the prefix, what decided, the outcome, why
// and how long it took.
func writeStep(b *strings.Builder, prefix, name string, s *request.Step) {
	b.WriteString(prefix + name + ": " + s.Outcome)
	if s.Detail != "" {
		b.WriteString(" — " + s.Detail)
	}
	if s.Micros > 0 {
		fmt.Fprintf(b, " (%s)", time.Duration(s.Micros)*time.Microsecond)
	}
	b.WriteString("\n")
}

func title(stage string) string {
	if stage == "" {
		return "Steps"
	}
	return strings.ToUpper(stage[:1]) + stage[1:]
}
