package webhook

import (
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/portcullis/portcullis/internal/admission/policy/matching"
	"github.com/portcullis/portcullis/internal/webhookclient"
)

// ServiceResolver turns a webhook's service reference into the URL to dial
// (webhookclient.ServiceResolver).
type ServiceResolver = webhookclient.ServiceResolver

// ServiceResolverFunc adapts a function to ServiceResolver.
type ServiceResolverFunc = webhookclient.ServiceResolverFunc

// Options are the dependencies of both plugins.
type Options struct {
	// Namespaces looks up the namespace of a request for namespaceSelector.
	Namespaces matching.NamespaceGetter
	// Authorizer backs the authorizer variable of matchConditions; nil
	// leaves it unbound (expressions using it fail by failurePolicy).
	Authorizer authorizer.UnconditionalAuthorizer
	// Services resolves clientConfig.service; nil fails such webhooks.
	Services ServiceResolver
	// KubeconfigFile is WebhookAdmissionConfiguration.kubeConfigFile: the
	// credentials presented to webhooks, by host; read once, at New.
	KubeconfigFile string
	// Metrics registers the webhook metrics; nil keeps them unregistered.
	Metrics prometheus.Registerer
	// Scheme creates and defaults typed objects decoded from a patch; nil
	// creates them by reflection and does not default.
	Scheme *runtime.Scheme
	Log    *slog.Logger
	// Static marks the plugin of manifest-based webhooks, which also apply
	// to the admission configuration types.
	Static bool
	// Answers, when set, answers webhooks by name from recorded AdmissionReviews instead of calling them
	// (portcullis admit); a webhook it has no answer for is called.
	Answers func(webhook string) (review []byte, ok bool)
}

func (o *Options) logger() *slog.Logger {
	if o.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Log
}
