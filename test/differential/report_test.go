package differential

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated report in docs/conformance.md")

const (
	conformanceDoc = "../../docs/conformance.md"
	reportBegin    = "<!-- report: go test ./test/differential -run TestConformanceReport -update -->\n"
	reportEnd      = "<!-- end of report -->\n"
)

// TestConformanceReport keeps the rates and known differences in
// docs/conformance.md true to the scenario files.
func TestConformanceReport(t *testing.T) {
	suites, err := loadSuites("scenarios")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(conformanceDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, reportBegin), strings.Index(doc, reportEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no %q ... %q section", conformanceDoc, reportBegin, reportEnd)
	}
	want := report(suites)
	if got := doc[i+len(reportBegin) : j]; got != want {
		if !*update {
			t.Fatalf("%s is out of date (run go test ./test/differential -run TestConformanceReport -update); want:\n%s", conformanceDoc, want)
		}
		doc = doc[:i+len(reportBegin)] + want + doc[j:]
		if err := os.WriteFile(conformanceDoc, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n := scenarioCount(suites); n < 200 {
		t.Logf("%d scenarios (issue 13 asks for at least 200)", n)
	}
}
