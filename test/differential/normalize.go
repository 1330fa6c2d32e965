package differential

import (
	"encoding/json"
	"regexp"
	"sort"
	"strings"
)

// What must differ between two runs, and only that, is replaced by
// placeholders: uids, timestamps, resourceVersions, generated names,
// certificate hashes, and the addresses and directories of the run.
var (
	uidRE  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	timeRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`)
	hashRE = regexp.MustCompile(`\b[0-9a-f]{64}\b`)
	// jwtRE is a signed token (a service account's, issued by the run).
	jwtRE = regexp.MustCompile(`eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+`)
	// resourceVersion: "123" in YAML, and "resourceVersion":"123" in JSON text.
	rvYAMLRE = regexp.MustCompile(`(resourceVersion: )"?\d+"?`)
	// The JSON may be quoted inside a message (a patch's Invalid value).
	rvJSONRE = regexp.MustCompile(`(\\?"resourceVersion\\?": ?\\?")\d+(\\?")`)
	// rvTextRE is a resourceVersion in kube-apiserver's precondition and
	// storage error texts.
	rvTextRE = regexp.MustCompile(`(ResourceVersion in record \(|ResourceVersion: )\d+`)
	// klogRE is the header of a klog line kubectl writes to stderr: when
	// and by which process.
	klogRE = regexp.MustCompile(`(?m)^([IWEF])\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ `)
	// ageRE is the AGE column of kubectl's tables (5s, 3m2s, 10d).
	ageRE = regexp.MustCompile(`(\s)(\d+[smhd])+(\s|$)`)
	// tokenVolumeRE is the ServiceAccount plugin's projected token volume,
	// named with a random suffix of the generateName alphabet.
	tokenVolumeRE = regexp.MustCompile(`\bkube-api-access-` + generatedSuffix + `\b`)
)

// clientTimeout: a client-go request with a timeout has two timers (its
// context's and http.Client.Timeout) and Go's HTTP client words their
// firing three ways, depending on which goroutine notices first; all
// become the plainest.
var clientTimeout = strings.NewReplacer(
	"net/http: request canceled (Client.Timeout exceeded while awaiting headers)", "context deadline exceeded",
	"context deadline exceeded (Client.Timeout exceeded while awaiting headers)", "context deadline exceeded")

// rvKeys are the fields whose values are resourceVersions.
var rvKeys = map[string]bool{"resourceVersion": true, "continue": true}

// normalize returns v (a decoded JSON value) with run-specific values
// replaced, by way of a JSON round trip so that all numbers are float64
// as in goldens.
// generated collects the names made from a generateName (found in objects
// carrying both) and replaces them wherever else they appear.
func normalize(v any, pairs []string, generated map[string]string) any {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		return err.Error()
	}
	collectGenerated(out, generated)
	for name, p := range generated {
		pairs = append(pairs, name, p)
	}
	return walk(out, "", strings.NewReplacer(pairs...))
}

func collectGenerated(v any, into map[string]string) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			collectGenerated(e, into)
		}
	case map[string]any:
		if gen, ok := x["generateName"].(string); ok && gen != "" {
			if name, ok := x["name"].(string); ok && strings.HasPrefix(name, gen) && name != gen {
				into[name] = gen + "<generated>"
			}
		}
		for _, e := range x {
			collectGenerated(e, into)
		}
	}
}

// generatedSuffix is what the API server appends to a generateName (5
// characters of its alphabet without vowels and look-alikes).
const generatedSuffix = `[bcdfghjklmnpqrstvwxz2456789]{5}`

// generateNameOf is the metadata.generateName of a request body, if any.
func generateNameOf(body any) string {
	obj, _ := body.(map[string]any)
	meta, _ := obj["metadata"].(map[string]any)
	gen, _ := meta["generateName"].(string)
	return gen
}

// collectGeneratedText finds names made from gen in every string of v (a
// denial's message names the object before any object carries the name).
func collectGeneratedText(v any, gen string, into map[string]string) {
	re := regexp.MustCompile(regexp.QuoteMeta(gen) + generatedSuffix)
	var visit func(any)
	visit = func(v any) {
		switch x := v.(type) {
		case string:
			for _, name := range re.FindAllString(x, -1) {
				into[name] = gen + "<generated>"
			}
		case []any:
			for _, e := range x {
				visit(e)
			}
		case map[string]any:
			for _, e := range x {
				visit(e)
			}
		}
	}
	visit(v)
}

func walk(v any, key string, rep *strings.Replacer) any {
	switch x := v.(type) {
	case string:
		if rvKeys[key] && x != "" {
			return "<rv>"
		}
		return text(x, rep)
	case []any:
		for i := range x {
			x[i] = walk(x[i], key, rep)
		}
		if key == "managedFields" {
			sortManagedFields(x)
		}
		return x
	case map[string]any:
		for k, e := range x {
			x[k] = walk(e, k, rep)
		}
		return x
	}
	return v
}

// text normalises a string: placeholders, uids, times, hashes, and
// resourceVersions written inside it (YAML and JSON printed by kubectl).
func text(s string, rep *strings.Replacer) string {
	s = rep.Replace(s)
	s = clientTimeout.Replace(s)
	s = uidRE.ReplaceAllString(s, "<uid>")
	s = timeRE.ReplaceAllString(s, "<time>")
	s = hashRE.ReplaceAllString(s, "<hash>")
	s = jwtRE.ReplaceAllString(s, "<jwt>")
	s = klogRE.ReplaceAllString(s, "${1}<klog> ")
	s = rvYAMLRE.ReplaceAllString(s, `${1}<rv>`)
	s = rvJSONRE.ReplaceAllString(s, `${1}<rv>${2}`)
	s = rvTextRE.ReplaceAllString(s, `${1}<rv>`)
	s = tokenVolumeRE.ReplaceAllString(s, "kube-api-access-<generated>")
	return s
}

// kubectlText additionally normalises the AGE column of tables.
func kubectlText(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	if !strings.Contains(first, "AGE") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] = ageRE.ReplaceAllString(lines[i], "${1}<age>${3}")
	}
	return strings.Join(lines, "\n")
}

// ageColumns collapses the padding after the AGE column of kubectl's
// tables. Its width is that of the longest age, which depends on when
// each server created its objects (a system object made at start is
// seconds older on a slow run), not on what the server answers. Applied
// to goldens and answers alike when they are compared.
func ageColumns(s string) string {
	if !strings.Contains(s, "<age>") {
		return s
	}
	return agePaddingRE.ReplaceAllString(s, "${1}  ")
}

var agePaddingRE = regexp.MustCompile(`(<age>|\bAGE) {2,}`)

// sortManagedFields orders managedFields entries without their times: the
// servers sort entries by operation, then by the second of their time,
// then by manager, so two managers writing within a run land in an order
// that depends on the clock.
func sortManagedFields(entries []any) {
	key := func(e any) string {
		m, _ := e.(map[string]any)
		var k []string
		for _, f := range []string{"operation", "manager", "apiVersion", "subresource"} {
			s, _ := m[f].(string)
			k = append(k, s)
		}
		return strings.Join(k, "\x00")
	}
	sort.SliceStable(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
}
