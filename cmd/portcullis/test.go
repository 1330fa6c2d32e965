package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/portcullis/portcullis/internal/offline"
	"github.com/portcullis/portcullis/internal/server"
)

// newTest is `portcullis test`: AdmissionTest files run offline.
func newTest() *cobra.Command {
	cfg := server.Default()
	var (
		of      offlineFlags
		junit   string
		output  string
		verbose bool
	)
	cmd := &cobra.Command{
		Use:   "test [flags] DIR|FILE...",
		Short: "Run AdmissionTest files (state, requests, expected outcomes) through the chain of `portcullis serve`, offline",
		Long: `Run every AdmissionTest document (apiVersion portcullis.dev/v1alpha1) found in the files and
directories given (recursively). Each test starts its own in-process server with the command line's
flags, then the test's own flags, its state (and the -f state), and runs its cases in order: each
case is a request with the expected outcome (allowed, code, reason, message, warnings, fields of the
final object, audit annotations). No server, cluster or network is needed (webhooks without a
recorded answer are called). Prints one line per case and a summary; --junit writes JUnit XML.

Exit status: 0 when every case passed, 1 when any failed, 2 on a configuration error.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			finishChainFlags(cmd.Flags(), &cfg)
			if output != "" && output != "json" {
				return configError(fmt.Errorf("--output %q: want json or nothing", output))
			}
			tests, err := offline.ReadTests(args)
			if err != nil {
				return configError(err)
			}
			if len(tests) == 0 {
				return configError(fmt.Errorf("no %s documents in %s", offline.TestKind, strings.Join(args, ", ")))
			}
			base, err := of.setup(cmd, cfg)
			if err != nil {
				return configError(err)
			}
			// The command line's own configuration must start a server
			// before any test adds to it: a bad file it names is the
			// run's error, not each test's.
			probe, err := offline.Start(cmd.Context(), base)
			if err != nil {
				return configError(err)
			}
			probe.Close()
			var reports []*offline.TestReport
			out := cmd.OutOrStdout()
			cases, failed := 0, 0
			start := time.Now()
			for _, t := range tests {
				rep := runOneTest(cmd, t, base)
				reports = append(reports, rep)
				if output == "" {
					writeTestReport(out, rep, verbose)
				}
				cases += max(len(rep.Cases), 1)
				failed += rep.Failed()
			}
			if output == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(reports); err != nil {
					return err
				}
			} else {
				fmt.Fprintf(out, "%d tests, %d cases: %d passed, %d failed (%s)\n", len(tests), cases, cases-failed, failed, time.Since(start).Round(time.Millisecond))
			}
			if junit != "" {
				if err := writeJUnitFile(junit, reports); err != nil {
					return configError(err)
				}
			}
			if failed > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d of %d cases failed", failed, cases)}
			}
			return nil
		},
	}
	f := cmd.Flags()
	of.add(cmd)
	cmd.SetFlagErrorFunc(flagError)
	f.StringVar(&junit, "junit", "", "Write the results as JUnit XML to this file.")
	f.StringVarP(&output, "output", "o", "", "json for the reports, with every result, as data.")
	f.BoolVar(&verbose, "verbose", false, "Print the decision trace of every case, not only of failed ones.")
	addChainFlags(f, &cfg)
	return cmd
}

// runOneTest runs t with the command line's configuration and state, plus
// the test's own flags and state.
func runOneTest(cmd *cobra.Command, t *offline.Test, base offline.Setup) *offline.TestReport {
	cfg, err := testConfig(cmd.Flags(), t)
	if err != nil {
		return &offline.TestReport{Name: t.Metadata.Name, File: t.File, Error: err.Error()}
	}
	setup, err := t.Setup(cfg)
	if err != nil {
		return &offline.TestReport{Name: t.Metadata.Name, File: t.File, Error: err.Error()}
	}
	setup.State = append(append([]*unstructured.Unstructured(nil), base.State...), setup.State...)
	for name, b := range base.WebhookAnswers {
		if _, ok := setup.WebhookAnswers[name]; !ok {
			setup.WebhookAnswers[name] = b
		}
	}
	setup.Log = base.Log
	return offline.RunTest(cmd.Context(), t, setup)
}

// testConfig parses the command line's chain flags again and then the
// test's, so that a test's flags add to or override them. A test's
// relative file paths are relative to its file.
func testConfig(cmdline *pflag.FlagSet, t *offline.Test) (server.Config, error) {
	cfg := server.Default()
	fs := pflag.NewFlagSet(t.Metadata.Name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addChainFlags(fs, &cfg)
	var args []string
	cmdline.Visit(func(fl *pflag.Flag) {
		if fs.Lookup(fl.Name) == nil {
			return
		}
		if sv, ok := fl.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+fl.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+fl.Name+"="+fl.Value.String())
	})
	if err := fs.Parse(args); err != nil {
		return cfg, fmt.Errorf("command line: %w", err)
	}
	own := make([]string, len(t.Flags))
	for i, a := range t.Flags {
		own[i] = resolvePathFlag(fs, a, t.Dir)
	}
	if err := fs.Parse(own); err != nil {
		return cfg, fmt.Errorf("flags: %w", err)
	}
	finishChainFlags(fs, &cfg)
	return cfg, nil
}

// resolvePathFlag makes the relative path of a file flag (--name=value,
// name ending in "file" or "config") relative to dir.
func resolvePathFlag(fs *pflag.FlagSet, arg, dir string) string {
	name, value, ok := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
	if !ok || !strings.HasPrefix(arg, "--") || value == "" || filepath.IsAbs(value) || fs.Lookup(name) == nil {
		return arg
	}
	if !strings.HasSuffix(name, "file") && !strings.HasSuffix(name, "config") {
		return arg
	}
	return "--" + name + "=" + filepath.Join(dir, value)
}

// writeTestReport prints one line per case, with the failures and the
// decision trace of those that failed.
func writeTestReport(w io.Writer, r *offline.TestReport, verbose bool) {
	if r.Error != "" {
		fmt.Fprintf(w, "ERROR %s (%s): %s\n", r.Name, r.File, r.Error)
		return
	}
	for _, c := range r.Cases {
		mark := "PASS"
		if !c.Passed() {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "%s %s / %s\n", mark, r.Name, c.Name)
		if c.Error != "" {
			fmt.Fprintf(w, "    error: %s\n", c.Error)
		}
		for _, f := range c.Failures {
			fmt.Fprintf(w, "    %s\n", f)
		}
		if c.Result != nil && (verbose || !c.Passed()) {
			var b strings.Builder
			_ = c.Result.Write(&b, offline.WriteOptions{})
			for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
				fmt.Fprintf(w, "    | %s\n", line)
			}
		}
	}
}

func writeJUnitFile(path string, reports []*offline.TestReport) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--junit: %w", err)
	}
	if err := offline.WriteJUnit(f, reports); err != nil {
		f.Close()
		return fmt.Errorf("--junit: %w", err)
	}
	return f.Close()
}
