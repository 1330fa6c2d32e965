package differential

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// untilTimeout bounds the repetition of a step that waits for configuration
// to take effect.
const untilTimeout = 60 * time.Second

// Result is what clients saw in one case: one entry per step.
type Result []any

// runner runs a suite's steps against one target.
type runner struct {
	t       *testing.T
	e       *env
	tg      *target
	clients map[string]*http.Client
	// generated maps names the server generated to placeholders, so that
	// later steps (a webhook's review) show them alike.
	generated map[string]string
	// saved holds the values steps saved, by name.
	saved map[string]string
}

func newRunner(t *testing.T, e *env, tg *target) *runner {
	return &runner{t: t, e: e, tg: tg, clients: map[string]*http.Client{}, generated: map[string]string{}, saved: map[string]string{}}
}

// namespace is the namespace a case's steps call $ns.
func namespace(c string) string {
	n := "c-" + c
	if len(n) > 63 {
		n = strings.TrimRight(n[:63], "-")
	}
	return n
}

// prepare creates every case's namespace.
func (r *runner) prepare(s *Suite) {
	for _, c := range append([]Case{{Name: "setup"}}, s.Cases...) {
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, namespace(c.Name))
		resp, _, err := r.do("admin", http.MethodPost, "/api/v1/namespaces", "application/json", []byte(body), nil)
		if err != nil || resp.StatusCode != http.StatusCreated {
			r.t.Fatalf("creating namespace %s: %v %v", namespace(c.Name), err, resp)
		}
	}
}

func (r *runner) run(name string, steps []Step) Result {
	ns := namespace(name)
	res := Result{}
	for _, st := range steps {
		st = expand(st, ns, r.saved)
		out := r.step(st)
		if st.Ignore {
			continue
		}
		if out == nil {
			continue
		}
		if gen := generateNameOf(st.Body); gen != "" {
			collectGeneratedText(out, gen, r.generated)
		}
		res = append(res, normalize(out, r.pairs(), r.generated))
	}
	return res
}

// pairs turn run-specific strings into placeholders (old, new, ...).
func (r *runner) pairs() []string {
	// The URL first, then its host:port alone (discovery's serverAddress).
	return append(r.e.placeholders(), r.tg.url, "<server>", strings.TrimPrefix(r.tg.url, "https://"), "<server-address>")
}

func (r *runner) step(st Step) any {
	switch {
	case st.Path != "":
		return r.request(st)
	case st.Kubectl != nil:
		return r.kubectl(st)
	case st.Webhook != "":
		return map[string]any{"webhook": st.Webhook, "received": r.e.webhooks.take(st.Webhook)}
	case st.Authz != "":
		return map[string]any{"authz": st.Authz, "received": r.e.authz.take(st.Authz)}
	case st.Metrics != nil:
		return r.metrics(st.Metrics, st.UntilSeries)
	case st.Write != "":
		r.e.writeFileAtomic(r.t, st.Write, st.Content)
		return nil
	default:
		if err := os.Remove(filepath.Join(r.e.dir, st.Remove)); err != nil {
			r.t.Fatal(err)
		}
		return nil
	}
}

func (r *runner) client(user string) *http.Client {
	if user == "" {
		user = "admin"
	}
	c, ok := r.clients[user]
	if !ok {
		c = r.e.httpClient(r.t, user)
		r.clients[user] = c
	}
	return c
}

func (r *runner) do(user, method, path, contentType string, body []byte, headers map[string]HeaderValues) (*http.Response, []byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, r.tg.url+path, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	for k, vs := range headers {
		req.Header.Del(k)
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	resp, err := r.client(user).Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func (r *runner) request(st Step) any {
	var body []byte
	contentType := "application/json"
	if st.Method == http.MethodPatch {
		contentType = "application/merge-patch+json"
	}
	switch {
	case st.RawBody != "":
		body = []byte(st.RawBody)
	case st.Body != nil:
		var err error
		if body, err = json.Marshal(st.Body); err != nil {
			r.t.Fatal(err)
		}
	}
	var (
		resp *http.Response
		data []byte
		err  error
	)
	deadline := time.Now().Add(untilTimeout)
	for {
		resp, data, err = r.do(st.As, st.Method, st.Path, contentType, body, st.Headers)
		if err != nil {
			return map[string]any{"error": err.Error()}
		}
		if st.Until == 0 || resp.StatusCode == st.Until {
			break
		}
		if time.Now().After(deadline) {
			// Recorded as answered; a scenario that waits for a code the
			// server never gives only wastes a minute, so say so.
			r.t.Logf("until %d: %s %s still answers %d after %s", st.Until, st.Method, st.Path, resp.StatusCode, untilTimeout)
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	out := map[string]any{"request": st.Method + " " + st.Path, "code": resp.StatusCode}
	if w := resp.Header.Values("Warning"); len(w) > 0 {
		out["warnings"] = w
	}
	r.save(st.Save, data)
	out["body"] = decodeBody(data, st.Keep)
	if st.Audit {
		out["audit"] = r.audit(resp.Header.Get("Audit-Id"))
	}
	return out
}

// decodeBody is a JSON answer as a value (only the kept fields), or the
// text of any other answer.
func decodeBody(data []byte, keep []string) any {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return string(data)
	}
	obj, ok := v.(map[string]any)
	if !ok || len(keep) == 0 {
		return v
	}
	kept := map[string]any{}
	for _, k := range keep {
		cur, dst := any(obj), kept
		parts := strings.Split(k, ".")
		for i, p := range parts {
			m, ok := cur.(map[string]any)
			if !ok {
				break
			}
			if i == len(parts)-1 {
				if val, ok := m[p]; ok {
					dst[p] = val
				}
				break
			}
			next, ok := dst[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				dst[p] = next
			}
			cur, dst = m[p], next
		}
	}
	return kept
}

// audit waits for the audit event of the request with auditID to reach the
// log and returns its annotations, user and response code.
func (r *runner) audit(auditID string) any {
	deadline := time.Now().Add(untilTimeout)
	for {
		if ev := findAudit(r.e.auditLog, auditID); ev != nil {
			ann, _ := ev["annotations"].(map[string]any)
			if ann == nil {
				ann = map[string]any{}
			}
			// kube-apiserver adds its apiserver.latency.k8s.io/* durations
			// only to requests slower than half a second: when and what
			// they say depends on the machine's load.
			// portcullis's decision trace has no counterpart there.
			for k := range ann {
				if strings.HasPrefix(k, "apiserver.latency.k8s.io/") || k == "trace.portcullis.dev/decision" {
					delete(ann, k)
				}
			}
			return map[string]any{"annotations": ann, "user": ev["user"], "responseStatus": ev["responseStatus"]}
		}
		if time.Now().After(deadline) {
			return map[string]any{"error": "no audit event for " + auditID}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func findAudit(path, auditID string) map[string]any {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		if !bytes.Contains(sc.Bytes(), []byte(auditID)) {
			continue
		}
		var ev map[string]any
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev["auditID"] == auditID && (ev["stage"] == "ResponseComplete" || failedAuthentication(ev)) {
			return ev
		}
	}
	return nil
}

func (r *runner) kubectl(st Step) any {
	var args []string
	switch a := st.Kubectl.(type) {
	case string:
		args = strings.Fields(a)
	case []any:
		for _, x := range a {
			args = append(args, fmt.Sprint(x))
		}
	}
	user := st.As
	if user == "" {
		user = "admin"
	}
	bin := harness.KubectlPath(r.t)
	home := filepath.Join(r.e.dir, "home")
	full := append([]string{"--kubeconfig", r.e.kubeconfig(r.t, r.tg.url, user),
		"--cache-dir", filepath.Join(r.e.dir, "kubectl-cache-"+user)}, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Env = append(withoutKubeEnv(), "HOME="+home, "KUBERC=off")
	cmd.Stdin = strings.NewReader(st.Stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("kubectl: %v", err)
	}
	return map[string]any{"kubectl": strings.Join(args, " "), "exit": code,
		"stdout": kubectlText(stdout.String()), "stderr": kubectlText(stderr.String())}
}

func withoutKubeEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		switch name, _, _ := strings.Cut(kv, "="); name {
		case "KUBECONFIG", "HOME", "KUBERC", "KUBECTL_KUBERC":
			continue
		}
		env = append(env, kv)
	}
	return env
}

// metrics records the exposition lines of the named metrics, sorted; with
// until set, once a line contains it (or untilTimeout has passed).
func (r *runner) metrics(names []string, until string) any {
	deadline := time.Now().Add(untilTimeout)
	for {
		lines := r.series(names)
		if until == "" || time.Now().After(deadline) {
			return map[string]any{"metrics": names, "series": lines}
		}
		for _, l := range lines {
			if strings.Contains(l, until) {
				// A scrape is not atomic across metrics: one taken while a
				// reload records its outcome may show its counter and not
				// yet its time (or the other way round). The next shows both.
				return map[string]any{"metrics": names, "series": r.series(names)}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (r *runner) series(names []string) []string {
	_, data, err := r.do("admin", http.MethodGet, "/metrics", "", nil, map[string]HeaderValues{"Accept": {"text/plain"}})
	if err != nil {
		r.t.Fatal(err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	lines := []string{}
	for _, l := range strings.Split(string(data), "\n") {
		if l == "" || l[0] == '#' {
			continue
		}
		name := l
		if i := strings.IndexAny(l, "{ "); i >= 0 {
			name = l[:i]
		}
		if !want[name] {
			continue
		}
		// A timestamp is when the run happened.
		if strings.HasSuffix(name, "_timestamp_seconds") {
			if i := strings.LastIndexByte(l, ' '); i >= 0 {
				l = l[:i] + " <time>"
			}
		}
		lines = append(lines, l)
	}
	sort.Strings(lines)
	return lines
}

// save remembers the values at the dotted paths of a JSON answer.
func (r *runner) save(paths map[string]string, data []byte) {
	if len(paths) == 0 {
		return
	}
	var v any
	_ = json.Unmarshal(data, &v)
	for name, path := range paths {
		cur := v
		for _, p := range strings.Split(path, ".") {
			m, _ := cur.(map[string]any)
			cur = m[p]
		}
		if s, ok := cur.(string); ok {
			r.saved[name] = s
		} else {
			r.saved[name] = fmt.Sprint(cur)
		}
	}
}

// expand replaces $ns and the saved $(name)s in every string of a step.
func expand(st Step, ns string, saved map[string]string) Step {
	pairs := []string{"$ns", ns}
	for k, v := range saved {
		pairs = append(pairs, "$("+k+")", v)
	}
	rep := strings.NewReplacer(pairs...)
	st.Path = rep.Replace(st.Path)
	st.RawBody = rep.Replace(st.RawBody)
	st.Stdin = rep.Replace(st.Stdin)
	st.Content = rep.Replace(st.Content)
	st.Body = replaceAll(st.Body, rep)
	st.Kubectl = replaceAll(st.Kubectl, rep)
	h := map[string]HeaderValues{}
	for k, vs := range st.Headers {
		for _, v := range vs {
			h[k] = append(h[k], rep.Replace(v))
		}
	}
	st.Headers = h
	return st
}

func replaceAll(v any, rep *strings.Replacer) any {
	switch x := v.(type) {
	case string:
		return rep.Replace(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = replaceAll(e, rep)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[rep.Replace(k)] = replaceAll(e, rep)
		}
		return out
	}
	return v
}

// failedAuthentication reports the event kube-apiserver writes for a 401:
// it omits ResponseComplete, so ResponseStarted is the last stage.
func failedAuthentication(ev map[string]any) bool {
	st, _ := ev["responseStatus"].(map[string]any)
	code, _ := st["code"].(float64)
	return ev["stage"] == "ResponseStarted" && code == 401
}
