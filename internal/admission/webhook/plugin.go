package webhook

import (
	"log/slog"

	"github.com/portcullis/portcullis/internal/admission/policy/celenv"
	"github.com/portcullis/portcullis/internal/webhookclient"
)

// plugin is what the validating and mutating plugins share.
type plugin struct {
	opts    Options
	log     *slog.Logger
	reg     *registry
	clients *webhookclient.Client
	metrics *metrics
	// conditions makes the activations of match conditions; without
	// variables it holds no state, so one serves every webhook.
	conditions *celenv.Compiler
	creds      *credentials
}

func newPlugin(opts Options) (*plugin, error) {
	creds, err := loadCredentials(opts.KubeconfigFile)
	if err != nil {
		return nil, err
	}
	clients := webhookclient.New(opts.Services)
	return &plugin{
		opts:       opts,
		log:        opts.logger(),
		reg:        newRegistry(clients),
		clients:    clients,
		creds:      creds,
		metrics:    newMetrics(opts.Metrics),
		conditions: celenv.NewCompiler(false, nil),
	}, nil
}
