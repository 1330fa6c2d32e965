package printers

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// now is the clock of every golden table.
var now = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }

func agoMicro(d time.Duration) metav1.MicroTime { return metav1.NewMicroTime(now.Add(-d)) }

// objectMeta is a namespaced object created age ago.
func objectMeta(name string, age time.Duration) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: "default", CreationTimestamp: ago(age), ResourceVersion: "7"}
}

func ptr[T any](v T) *T { return &v }

// goldenCase renders obj with opts into testdata/<name>.json.
type goldenCase struct {
	name string
	obj  runtime.Object
	opts metav1.TableOptions
}

// TestGolden compares the tables of representative objects, one file per
// case; run with -update to rewrite the files after a deliberate change.
func TestGolden(t *testing.T) {
	var cases []goldenCase
	for _, group := range [][]goldenCase{coreCases(), workloadCases(), clusterCases(), tableCases(), apiextensionsCases(), autoscalingCases()} {
		cases = append(cases, group...)
	}
	seen := map[string]bool{}
	for _, tc := range cases {
		if seen[tc.name] {
			t.Fatalf("two cases named %q", tc.name)
		}
		seen[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			if opts.IncludeObject == "" {
				// Keep the files to the cells unless a case is about the objects.
				opts.IncludeObject = metav1.IncludeNone
			}
			table, err := Table(tc.obj, opts, now)
			if err != nil {
				t.Fatal(err)
			}
			for _, row := range table.Rows {
				if !opts.NoHeaders {
					checkRow(t, table.ColumnDefinitions, row)
				}
			}
			// Unescaped, so that "<none>" reads as such in the files.
			var got bytes.Buffer
			enc := json.NewEncoder(&got)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(table); err != nil {
				t.Fatal(err)
			}
			compareGolden(t, tc.name, got.Bytes())
		})
	}
}

func compareGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, diff)
	}
}
