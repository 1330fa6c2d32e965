package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/portcullis/portcullis/internal/offline"
	"github.com/portcullis/portcullis/internal/server"
)

// exitError ends the command with a given exit code: 1 for a denied
// request or a failed test, 2 for a configuration error.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// configError is an input the run could not start or go on with.
func configError(err error) error { return &exitError{code: 2, err: err} }

// flagError makes a bad flag of admit and test a configuration error
// (exit status 2), as their help promises.
func flagError(_ *cobra.Command, err error) error { return configError(err) }

// offlineFlags are the flags `admit` and `test` share beyond the chain's.
type offlineFlags struct {
	state   []string
	answers map[string]string
	verbose int
}

func (o *offlineFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringArrayVarP(&o.state, "filename", "f", nil, "Cluster state: a manifest file or directory (recursive) of objects that exist before the first request (namespaces, RBAC, policies, bindings, params, webhook configurations, CRDs...). May be repeated; - is stdin.")
	f.StringToStringVar(&o.answers, "webhook-answer", nil, "NAME=FILE: answer the admission webhook NAME (webhooks[].name) with the recorded AdmissionReview in FILE (JSON or YAML, with a response) instead of calling it. May be repeated.")
	f.IntVarP(&o.verbose, "v", "v", 0, "Log verbosity of the in-process server; 4 or more logs debug messages.")
}

// setup reads the state and the webhook answers.
func (o *offlineFlags) setup(cmd *cobra.Command, cfg server.Config) (offline.Setup, error) {
	state, err := offline.ReadManifests(o.state, cmd.InOrStdin())
	if err != nil {
		return offline.Setup{}, fmt.Errorf("--filename: %w", err)
	}
	answers, err := readAnswers(o.answers)
	if err != nil {
		return offline.Setup{}, err
	}
	level := slog.LevelWarn
	if o.verbose >= 4 {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
	return offline.Setup{Config: cfg, State: state, WebhookAnswers: answers, Log: log}, nil
}

// readAnswers reads recorded AdmissionReviews, by webhook name, as JSON.
func readAnswers(files map[string]string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for name, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--webhook-answer %s: %w", name, err)
		}
		j, err := utilyaml.ToJSON(b)
		if err != nil {
			return nil, fmt.Errorf("--webhook-answer %s: %s: %w", name, file, err)
		}
		out[name] = j
	}
	return out, nil
}

// newAdmit is `portcullis admit`: requests through the whole chain, in
// process.
func newAdmit() *cobra.Command {
	cfg := server.Default()
	var (
		of         offlineFlags
		def        offline.Request
		user       offline.User
		output     string
		showObject bool
		allSteps   bool
	)
	cmd := &cobra.Command{
		Use:   "admit [flags] REQUEST-FILE...",
		Short: "Run requests through the authentication, authorization and admission chain of `portcullis serve`, in process, with no server",
		Long: `Run requests through the exact request path of portcullis serve (authentication, authorization,
every admission plugin, static manifests, ValidatingAdmissionPolicy, MutatingAdmissionPolicy,
webhooks, object validation), configured by serve's own flags, over a store in memory that holds the
cluster state given with -f. Each document of the REQUEST-FILEs (- is stdin) is a request: an
AdmissionRequest (apiVersion portcullis.dev/v1alpha1) naming an operation, user and objects, or any
object, which is created as the --as user. Requests run in order; what one writes stays for the next.

For each request it prints the authenticated identity, the authorization decision and the rule that
made it, each admission step in order with the policies, bindings and webhooks it ran, warnings, audit
annotations, durations, and the final object or the error kubectl would print.

Exit status: 0 when every request was admitted, 1 when any was denied, 2 on a configuration error.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			finishChainFlags(cmd.Flags(), &cfg)
			switch output {
			case "", "json", "yaml":
			default:
				return configError(fmt.Errorf("--output %q: want json, yaml or nothing", output))
			}
			if user.Name != "" {
				def.User = &user
			} else if len(user.Groups) > 0 || user.UID != "" {
				return configError(errors.New("--as-group and --as-uid need --as"))
			}
			setup, err := of.setup(cmd, cfg)
			if err != nil {
				return configError(err)
			}
			objs, err := offline.ReadManifests(args, cmd.InOrStdin())
			if err != nil {
				return configError(err)
			}
			reqs, err := offline.RequestsFrom(objs, def)
			if err != nil {
				return configError(err)
			}
			if len(reqs) == 0 {
				return configError(errors.New("no requests in " + strings.Join(args, ", ")))
			}
			runner, err := offline.Start(cmd.Context(), setup)
			if err != nil {
				return configError(err)
			}
			defer runner.Close()
			var results []*offline.Result
			denied := 0
			for _, req := range reqs {
				res, err := runner.Run(cmd.Context(), req)
				if err != nil {
					return configError(err)
				}
				if !res.Allowed {
					denied++
				}
				results = append(results, res)
				if output == "" {
					if err := res.Write(cmd.OutOrStdout(), offline.WriteOptions{Object: showObject, AllSteps: allSteps}); err != nil {
						return err
					}
				}
			}
			if err := writeResults(cmd.OutOrStdout(), output, results); err != nil {
				return err
			}
			if denied > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d of %d requests denied", denied, len(results))}
			}
			return nil
		},
	}
	f := cmd.Flags()
	of.add(cmd)
	cmd.SetFlagErrorFunc(flagError)
	f.StringVar(&user.Name, "as", "", "The user that makes the requests that name none (as an authenticating front proxy asserts it). Without --as or --token requests are anonymous.")
	f.StringArrayVar(&user.Groups, "as-group", nil, "A group of the --as user. May be repeated.")
	f.StringVar(&user.UID, "as-uid", "", "The UID of the --as user.")
	f.StringVar(&def.Token, "token", "", "A bearer token to authenticate the requests that name no user with (checked by --token-auth-file, --authentication-config, service account keys or the token webhook).")
	f.StringVar(&def.Operation, "operation", offline.Create, "The operation of objects given as requests: CREATE, UPDATE (of the stored object) or DELETE.")
	f.BoolVar(&def.DryRun, "dry-run", false, "Send the requests with dryRun=All.")
	f.StringVarP(&output, "output", "o", "", "json or yaml for the results as data; nothing for people.")
	f.BoolVar(&showObject, "show-object", true, "Print the final object of admitted requests.")
	f.BoolVar(&allSteps, "all-steps", false, "Print every admission plugin, also those that admitted without a word.")
	addChainFlags(f, &cfg)
	return cmd
}

// writeResults prints results as JSON or YAML (nothing for "").
func writeResults(w io.Writer, output string, results []*offline.Result) error {
	if output == "" {
		return nil
	}
	doc := map[string]any{"apiVersion": offline.APIVersion, "kind": "AdmissionResultList", "items": results}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if output == "yaml" {
		if b, err = yaml.JSONToYAML(b); err != nil {
			return err
		}
	}
	if output == "json" {
		b = append(b, '\n')
	}
	_, err = w.Write(b)
	return err
}
