package offline

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
)

// The JUnit XML shape CI systems read: testsuites of testsuites of
// testcases, a failure element for each failed case.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	File     string      `xml:"file,attr,omitempty"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes reports as JUnit XML: one testsuite per test, one
// testcase per case; a test that could not start is one errored case.
func WriteJUnit(w io.Writer, reports []*TestReport) error {
	var doc junitSuites
	var total float64
	for _, r := range reports {
		s := junitSuite{Name: r.Name, File: r.File, Time: seconds(r.Duration.Seconds())}
		total += r.Duration.Seconds()
		if r.Error != "" {
			s.Cases = append(s.Cases, junitCase{Name: "setup", ClassName: r.Name, Time: s.Time,
				Error: &junitProblem{Message: firstLine(r.Error), Text: r.Error}})
			s.Errors++
		}
		for _, c := range r.Cases {
			jc := junitCase{Name: c.Name, ClassName: r.Name, Time: "0"}
			if c.Result != nil {
				jc.Time = seconds(float64(c.Result.Micros) / 1e6)
			}
			switch {
			case c.Error != "":
				jc.Error = &junitProblem{Message: firstLine(c.Error), Text: c.Error}
				s.Errors++
			case len(c.Failures) > 0:
				jc.Failure = &junitProblem{Message: c.Failures[0], Text: strings.Join(c.Failures, "\n")}
				s.Failures++
			}
			s.Cases = append(s.Cases, jc)
		}
		s.Tests = len(s.Cases)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Errors += s.Errors
		doc.Suites = append(doc.Suites, s)
	}
	doc.Time = seconds(total)
	slices.SortStableFunc(doc.Suites, func(a, b junitSuite) int { return strings.Compare(a.File, b.File) })
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
