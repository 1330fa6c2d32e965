package offline

import (
	"bytes"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestWriteJUnit compares the XML of passed, failed and errored cases and
// of a test that could not start with testdata/junit.xml; run with
// -update to rewrite it after a deliberate change.
func TestWriteJUnit(t *testing.T) {
	reports := []*TestReport{{
		// Written after "a.yaml": suites are sorted by file.
		Name: "policies", File: "tests/z.yaml", Duration: 1500 * time.Millisecond,
		Cases: []CaseReport{
			{Name: "allowed", Result: &Result{Allowed: true, Code: 201, Micros: 2500}},
			{Name: "wrong code", Result: &Result{Code: 422, Micros: 1000},
				Failures: []string{"code: want 403, got 422 no <bad> & \"worse\"", "reason: want Forbidden, got \"Invalid\""}},
			{Name: "bad request", Error: "bad request: request \"x\": no resource serves kind \"Gadget\"\nsecond line"},
		},
	}, {
		Name: "broken", File: "tests/a.yaml", Duration: 250 * time.Millisecond,
		Error: "state: ConfigMap \"x\": no resource serves kind\nmore",
	}}
	var b bytes.Buffer
	if err := WriteJUnit(&b, reports); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "junit.xml")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("%s (-want +got):\n%s", golden, diff)
	}
	// What CI systems read of it.
	var doc junitSuites
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("the output is not XML: %v", err)
	}
	type counts struct{ Tests, Failures, Errors int }
	if diff := cmp.Diff(counts{Tests: 4, Failures: 1, Errors: 2}, counts{doc.Tests, doc.Failures, doc.Errors}); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
}

func TestWriteJUnitEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJUnit(&b, nil); err != nil {
		t.Fatal(err)
	}
	want := xml.Header + `<testsuites tests="0" failures="0" errors="0" time="0.000"></testsuites>` + "\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
