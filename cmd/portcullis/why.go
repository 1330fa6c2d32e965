package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/portcullis/portcullis/internal/why"
)

// newWhy is `portcullis why`: one request's decisions from an audit log.
func newWhy() *cobra.Command {
	var (
		q      why.Query
		output string
	)
	cmd := &cobra.Command{
		Use:   "why [AUDIT-LOG]",
		Short: "Explain from an audit log who authenticated a request, what authorized it and what admitted, mutated or denied it",
		Long: `Explain one request from an audit log (a file written by --audit-log-path, or stdin when
the file is "-" or not given): how it was authenticated, which authorizer and rule allowed or
denied it, and each admission plugin in order, with the policies, bindings and webhooks it
named, its outcome and duration. Select the request with --audit-id, or with --user, --verb,
--resource, --namespace, --name and --denied: the last request that matches is explained.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var in io.Reader = cmd.InOrStdin()
			if len(args) == 1 && args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				in = f
			}
			ev, err := why.Find(in, q)
			if errors.Is(err, why.ErrNotFound) {
				return fmt.Errorf("%w the selection", err)
			}
			if err != nil {
				return err
			}
			x, err := why.Explain(ev)
			if err != nil {
				return err
			}
			switch output {
			case "":
				return x.Write(cmd.OutOrStdout())
			case "json":
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(x)
			}
			return fmt.Errorf("--output %q: want json or nothing", output)
		},
	}
	f := cmd.Flags()
	f.StringVar(&q.AuditID, "audit-id", "", "the request's audit ID (its Audit-Id response header)")
	f.StringVar(&q.User, "user", "", "the authenticated or impersonated user name")
	f.StringVar(&q.Verb, "verb", "", "the request's verb (create, get, list, update, patch, delete...)")
	f.StringVar(&q.Resource, "resource", "", "the resource (pods, or deployments.apps)")
	f.StringVarP(&q.Namespace, "namespace", "n", "", "the object's namespace")
	f.StringVar(&q.Name, "name", "", "the object's name")
	f.BoolVar(&q.Denied, "denied", false, "only requests answered with an error")
	f.StringVarP(&output, "output", "o", "", "json for a machine-readable explanation")
	return cmd
}
