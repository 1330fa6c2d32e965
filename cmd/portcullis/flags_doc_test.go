package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"
)

// The "## Flags" section of docs/serve.md promises, for every flag of
// kube-apiserver v1.37.2, whether portcullis has it. These tests keep that
// promise true: against the flags newServe registers (the FlagSet the
// binary parses) and against kube-apiserver's own list and defaults in
// testdata/, taken from its -h.

const (
	serveDoc      = "../../docs/serve.md"
	kubeTableHead = "### kube-apiserver's flags"
	ownTableHead  = "### Flags only portcullis has"
	noDefault     = "–"
)

// verdicts of the kube-apiserver table, as the third cell begins.
const (
	verdictSame         = "same"
	verdictDifferent    = "different: "
	verdictNotSupported = "not supported: "
)

var flagCell = regexp.MustCompile("^`--([a-z0-9-]+)`$")

func TestFlagsDoc(t *testing.T) {
	doc, err := os.ReadFile(serveDoc)
	if err != nil {
		t.Fatal(err)
	}
	kube := readLines(t, "testdata/kube-apiserver-flags.txt")
	if !slices.IsSorted(kube) || len(slices.Compact(slices.Clone(kube))) != len(kube) {
		t.Fatal("testdata/kube-apiserver-flags.txt: names must be sorted and unique")
	}
	defaults := map[string]string{}
	for _, l := range readLines(t, "testdata/kube-apiserver-defaults.txt") {
		name, value, ok := strings.Cut(l, " ")
		if !ok || !slices.Contains(kube, name) {
			t.Fatalf("testdata/kube-apiserver-defaults.txt: %q is not `<kube-apiserver flag> <default>`", l)
		}
		defaults[name] = value
	}
	for _, p := range checkFlagsDoc(string(doc), kube, defaults, serveFlags()) {
		t.Error(p)
	}
}

// TestCheckFlagsDoc shows that checkFlagsDoc catches each kind of untruth,
// on a small document and flag set.
func TestCheckFlagsDoc(t *testing.T) {
	const doc = "# x\n\n## Flags\n\n" + kubeTableHead + "\n\n" +
		"| flag | kube-apiserver default | portcullis |\n|---|---|---|\n" +
		"| **Generic** | | |\n" +
		"| `--a` | `1` | same |\n" +
		"| `--b` | – | different: it is b |\n" +
		"| `--c` | – | not supported: no c |\n\n" +
		ownTableHead + "\n\n| flag | default | meaning |\n|---|---|---|\n" +
		"| `--own` | `x` | portcullis's own |\n\n## Next\n\n| `--z` | – | not part of the section |\n"
	kube := []string{"a", "b", "c"}
	defaults := map[string]string{"a": "1"}
	flags := func(mod func(fs *pflag.FlagSet)) *pflag.FlagSet {
		fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		fs.Int("a", 1, "")
		fs.String("b", "bee", "")
		fs.String("own", "x", "")
		if mod != nil {
			mod(fs)
		}
		return fs
	}
	tests := []struct {
		name  string
		doc   string
		kube  []string
		flags *pflag.FlagSet
		want  []string
	}{
		{name: "true", doc: doc, kube: kube, flags: flags(nil)},
		{
			name: "a kube flag missing from the table", doc: doc, kube: []string{"a", "b", "c", "d"}, flags: flags(nil),
			want: []string{"--d: kube-apiserver flag missing from " + kubeTableHead},
		},
		{
			name: "a row twice", doc: strings.Replace(doc, "| `--c` | – | not supported: no c |\n", "| `--c` | – | not supported: no c |\n| `--c` | – | not supported: no c |\n", 1), kube: kube, flags: flags(nil),
			want: []string{"--c: listed 2 times in " + kubeTableHead},
		},
		{
			name: "a row for no kube flag", doc: strings.Replace(doc, "| `--c` |", "| `--cc` |", 1), kube: kube, flags: flags(nil),
			want: []string{"--c: kube-apiserver flag missing from " + kubeTableHead, "--cc: not a kube-apiserver flag, but in " + kubeTableHead},
		},
		{
			name: "no verdict", doc: strings.Replace(doc, "different: it is b", "differs", 1), kube: kube, flags: flags(nil),
			want: []string{`--b: verdict "differs" is none of "same", "different: <why>", "not supported: <why>"`},
		},
		{
			name: "a verdict without its reason", doc: strings.Replace(doc, "not supported: no c", "not supported: ", 1), kube: kube, flags: flags(nil),
			want: []string{`--c: verdict "not supported:" is none of "same", "different: <why>", "not supported: <why>"`},
		},
		{
			name: "same but not registered", doc: doc, kube: kube,
			flags: func() *pflag.FlagSet {
				fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
				fs.String("b", "", "")
				fs.String("own", "x", "")
				return fs
			}(),
			want: []string{`--a: marked "same" but portcullis serve has no such flag`},
		},
		{
			name: "not supported but registered", doc: doc, kube: kube, flags: flags(func(fs *pflag.FlagSet) { fs.Bool("c", false, "") }),
			want: []string{`--c: marked "not supported" but portcullis serve registers it`},
		},
		{
			name: "same with another default", doc: doc, kube: kube, flags: flags(func(fs *pflag.FlagSet) { fs.Lookup("a").DefValue = "2" }),
			want: []string{`--a: marked "same" but portcullis's default is "2", kube-apiserver's "1"`},
		},
		{
			name: "a wrong kube default", doc: strings.Replace(doc, "| `--a` | `1` |", "| `--a` | `9` |", 1), kube: kube, flags: flags(nil),
			want: []string{"--a: kube-apiserver default is written `9`, -h shows `1`"},
		},
		{
			name: "a flag in no table", doc: doc, kube: kube, flags: flags(func(fs *pflag.FlagSet) { fs.Bool("new", false, "") }),
			want: []string{"--new: registered by portcullis serve but in neither table"},
		},
		{
			name: "an own flag gone", doc: doc, kube: kube,
			flags: func() *pflag.FlagSet {
				fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
				fs.Int("a", 1, "")
				fs.String("b", "", "")
				return fs
			}(),
			want: []string{"--own: in " + ownTableHead + " but portcullis serve has no such flag"},
		},
		{
			name: "an own flag's default changed", doc: doc, kube: kube, flags: flags(func(fs *pflag.FlagSet) { fs.Lookup("own").DefValue = "y" }),
			want: []string{"--own: default is written `x`, portcullis's is `y`"},
		},
		{
			name: "a kube flag in the own table", doc: strings.Replace(doc, "| `--own` |", "| `--b` |", 1), kube: kube, flags: flags(nil),
			want: []string{"--b: a kube-apiserver flag, in " + ownTableHead, "--b: default is written `x`, portcullis's is `bee`", "--own: registered by portcullis serve but in neither table"},
		},
		{
			name: "no section", doc: "# x\n", kube: kube, flags: flags(nil),
			want: []string{"no \"## Flags\" section with \"" + kubeTableHead + "\" then \"" + ownTableHead + "\""},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := checkFlagsDoc(tc.doc, tc.kube, defaults, tc.flags)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// serveFlags is the FlagSet of portcullis serve as the binary parses it,
// with the --help flag cobra adds on Execute.
func serveFlags() *pflag.FlagSet {
	cmd := newServe()
	cmd.InitDefaultHelpFlag()
	return cmd.Flags()
}

type docRow struct {
	flag, def, rest string
}

// checkFlagsDoc returns every way the "## Flags" section of doc is untrue
// of the flag set fs and kube-apiserver's flags kube (with the non-zero
// defaults its -h shows).
func checkFlagsDoc(doc string, kube []string, kubeDefaults map[string]string, fs *pflag.FlagSet) []string {
	var problems []string
	report := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf(format, args...))
	}
	kubeRows, ownRows, ok := flagTables(doc)
	if !ok {
		return []string{"no \"## Flags\" section with \"" + kubeTableHead + "\" then \"" + ownTableHead + "\""}
	}
	if len(kubeRows) == 0 || len(ownRows) == 0 {
		report("a flag table is empty or not found")
	}

	inKube := map[string]docRow{}
	count := map[string]int{}
	for _, r := range kubeRows {
		count[r.flag]++
		inKube[r.flag] = r
	}
	for _, name := range kube {
		if count[name] == 0 {
			report("--%s: kube-apiserver flag missing from %s", name, kubeTableHead)
		}
	}
	for _, r := range kubeRows {
		if count[r.flag] > 1 {
			report("--%s: listed %d times in %s", r.flag, count[r.flag], kubeTableHead)
			count[r.flag] = 0 // once is enough
			continue
		}
		if count[r.flag] == 0 {
			continue
		}
		if !slices.Contains(kube, r.flag) {
			report("--%s: not a kube-apiserver flag, but in %s", r.flag, kubeTableHead)
			continue
		}
		want := noDefault
		if d, ok := kubeDefaults[r.flag]; ok {
			want = "`" + d + "`"
		}
		if r.def != want {
			report("--%s: kube-apiserver default is written %s, -h shows %s", r.flag, r.def, want)
		}
		registered := fs.Lookup(r.flag)
		switch verdict(r.rest) {
		case verdictSame:
			if registered == nil {
				report("--%s: marked \"same\" but portcullis serve has no such flag", r.flag)
			} else if got, want := zeroAsNone(registered.DefValue), kubeDefaults[r.flag]; got != want {
				report("--%s: marked \"same\" but portcullis's default is %q, kube-apiserver's %q", r.flag, got, want)
			}
		case verdictDifferent:
			if registered == nil {
				report("--%s: marked \"different\" but portcullis serve has no such flag", r.flag)
			}
		case verdictNotSupported:
			if registered != nil {
				report("--%s: marked \"not supported\" but portcullis serve registers it", r.flag)
			}
		default:
			report("--%s: verdict %q is none of \"same\", \"different: <why>\", \"not supported: <why>\"", r.flag, r.rest)
		}
	}

	inOwn := map[string]bool{}
	for _, r := range ownRows {
		inOwn[r.flag] = true
		if slices.Contains(kube, r.flag) {
			report("--%s: a kube-apiserver flag, in %s", r.flag, ownTableHead)
		}
		registered := fs.Lookup(r.flag)
		if registered == nil {
			report("--%s: in %s but portcullis serve has no such flag", r.flag, ownTableHead)
			continue
		}
		if want := "`" + registered.DefValue + "`"; r.def != want {
			report("--%s: default is written %s, portcullis's is %s", r.flag, r.def, want)
		}
	}

	fs.VisitAll(func(f *pflag.Flag) {
		r, ok := inKube[f.Name]
		switch {
		case ok && (verdict(r.rest) == verdictSame || verdict(r.rest) == verdictDifferent), inOwn[f.Name]:
		case ok:
			// reported above as "not supported" but registered, or no verdict
		default:
			report("--%s: registered by portcullis serve but in neither table", f.Name)
		}
	})
	return problems
}

// verdict returns which of the three verdicts text is, or "" for none: a
// "different" or "not supported" must say why.
func verdict(text string) string {
	switch {
	case text == verdictSame:
		return verdictSame
	case strings.HasPrefix(text, verdictDifferent) && strings.TrimSpace(strings.TrimPrefix(text, verdictDifferent)) != "":
		return verdictDifferent
	case strings.HasPrefix(text, verdictNotSupported) && strings.TrimSpace(strings.TrimPrefix(text, verdictNotSupported)) != "":
		return verdictNotSupported
	}
	return ""
}

// zeroAsNone maps a pflag default to the defaults file's form: zero values
// are absent from kube-apiserver's -h and so from the file.
func zeroAsNone(v string) string {
	switch v {
	case "", "0", "0s", "false", "[]":
		return ""
	}
	return v
}

// flagTables returns the flag rows of the two tables of the "## Flags"
// section: rows whose first cell is one `--flag`; other rows (headers,
// group rows) are skipped.
func flagTables(doc string) (kube, own []docRow, ok bool) {
	_, section, found := strings.Cut(doc, "\n## Flags\n")
	if !found {
		return nil, nil, false
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	_, rest, found := strings.Cut(section, "\n"+kubeTableHead+"\n")
	if !found {
		return nil, nil, false
	}
	kubePart, ownPart, found := strings.Cut(rest, "\n"+ownTableHead+"\n")
	if !found {
		return nil, nil, false
	}
	return rows(kubePart), rows(ownPart), true
}

func rows(part string) []docRow {
	var out []docRow
	for _, line := range strings.Split(part, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 5 || strings.TrimSpace(cells[0]) != "" || strings.TrimSpace(cells[4]) != "" {
			continue
		}
		m := flagCell.FindStringSubmatch(strings.TrimSpace(cells[1]))
		if m == nil {
			continue
		}
		out = append(out, docRow{flag: m[1], def: strings.TrimSpace(cells[2]), rest: strings.TrimSpace(cells[3])})
	}
	return out
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}
