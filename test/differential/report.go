package differential

import (
	"fmt"
	"sort"
	"strings"
)

// documents are the subjects a suite's document field names, in the order
// docs/conformance.md lists them.
var documents = []struct{ key, title string }{
	{"static", "Manifest-based admission control (spec 000)"},
	{"webhooks", "Dynamic admission control: webhooks (spec 001)"},
	{"node", "Node authorization and NodeRestriction (spec 002)"},
	{"config", "kube-apiserver configuration files (spec 003)"},
	{"vap", "ValidatingAdmissionPolicy (spec 004)"},
	{"map", "MutatingAdmissionPolicy"},
	{"plugins", "Built-in admission plugins"},
	{"api", "API behaviour around the chain"},
}

func knownDocument(key string) bool {
	for _, d := range documents {
		if d.key == key {
			return true
		}
	}
	return false
}

// report is the generated part of docs/conformance.md: the identical rate
// per document and every known difference with its reason. It follows
// from the scenario files alone, because TestDifferential fails whenever a
// case unmarked differs or a marked one does not.
func report(suites []*Suite) string {
	type tally struct{ cases, identical int }
	per := map[string]*tally{}
	type diff struct{ suite, scenario, reason string }
	var known []diff
	for _, s := range suites {
		t := per[s.Document]
		if t == nil {
			t = &tally{}
			per[s.Document] = t
		}
		if s.StartFails {
			t.cases++
			t.identical++
		}
		for _, c := range s.Cases {
			t.cases++
			if c.Known == "" {
				t.identical++
			} else {
				known = append(known, diff{s.Name, c.Name, c.Known})
			}
		}
	}
	var b strings.Builder
	b.WriteString("| document | scenarios | identical | rate |\n|---|---:|---:|---:|\n")
	total := tally{}
	for _, d := range documents {
		t := per[d.key]
		if t == nil {
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s |\n", d.title, t.cases, t.identical, rate(t.identical, t.cases))
		total.cases += t.cases
		total.identical += t.identical
	}
	fmt.Fprintf(&b, "| **all** | **%d** | **%d** | **%s** |\n", total.cases, total.identical, rate(total.identical, total.cases))
	b.WriteString("\n")
	if len(known) == 0 {
		b.WriteString("No scenario differs.\n")
		return b.String()
	}
	sort.Slice(known, func(i, j int) bool {
		if known[i].suite != known[j].suite {
			return known[i].suite < known[j].suite
		}
		return known[i].scenario < known[j].scenario
	})
	b.WriteString("Scenarios that differ, and why:\n\n| suite | scenario | difference |\n|---|---|---|\n")
	for _, k := range known {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", k.suite, k.scenario, strings.ReplaceAll(k.reason, "|", `\|`))
	}
	return b.String()
}

func rate(n, of int) string {
	if of == 0 {
		return "-"
	}
	if n == of {
		return "100 %"
	}
	return fmt.Sprintf("%.1f %%", 100*float64(n)/float64(of))
}
