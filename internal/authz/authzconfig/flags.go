package authzconfig

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"

	"github.com/portcullis/portcullis/internal/authz/webhook"
)

// Defaults of the legacy webhook flags, as kube-apiserver has them.
const (
	DefaultWebhookVersion         = "v1beta1"
	DefaultWebhookAuthorizedTTL   = 5 * time.Minute
	DefaultWebhookUnauthorizedTTL = 30 * time.Second
)

const (
	// legacyWebhookName names the webhook of --authorization-mode=Webhook.
	legacyWebhookName = "default"
	// legacyWebhookTimeout: the flags have no timeout; kube-apiserver uses
	// its webhook client's.
	legacyWebhookTimeout = 30 * time.Second
)

// FromFlags converts kube-apiserver's legacy authorization flags into a
// Config: modes is --authorization-mode (each element may itself be a
// comma-separated list), then --authorization-webhook-config-file,
// --authorization-webhook-version and the two
// --authorization-webhook-cache-*-ttl flags. The webhook, if any, is named
// "default", times out after 30s and fails open (NoOpinion); a zero TTL
// disables that half of its cache. policyFile is --authorization-policy-file,
// which mode ABAC needs. Every inconsistency is reported with
// kube-apiserver's messages.
func FromFlags(modes []string, policyFile, webhookConfigFile, webhookVersion string, authorizedTTL, unauthorizedTTL time.Duration) (*Config, error) {
	var list []string
	for _, m := range modes {
		list = append(list, strings.Split(m, ",")...)
	}
	var errs []error
	if len(list) == 0 {
		errs = append(errs, fmt.Errorf("at least one authorization-mode must be passed"))
	}
	for _, m := range list {
		switch {
		case !sets.New(knownTypes...).Has(m):
			errs = append(errs, fmt.Errorf("authorization-mode %q is not a valid mode", m))
		case m == TypeWebhook && webhookConfigFile == "":
			errs = append(errs, fmt.Errorf("authorization-mode Webhook's authorization config file not passed"))
		case m == TypeABAC && policyFile == "":
			errs = append(errs, fmt.Errorf("authorization-mode ABAC's authorization policy file not passed"))
		}
	}
	set := sets.New(list...)
	if policyFile != "" && !set.Has(TypeABAC) {
		errs = append(errs, fmt.Errorf("cannot specify --authorization-policy-file without mode ABAC"))
	}
	if webhookConfigFile != "" && !set.Has(TypeWebhook) {
		errs = append(errs, fmt.Errorf("cannot specify --authorization-webhook-config-file without mode Webhook"))
	}
	if len(list) != set.Len() {
		errs = append(errs, fmt.Errorf("authorization-mode %q has mode specified more than once", list))
	}
	if set.Has(TypeWebhook) && webhookVersion != "v1" && webhookVersion != "v1beta1" {
		errs = append(errs, fmt.Errorf("unsupported webhook authorizer version %q, supported versions are %q, %q", webhookVersion, "v1", "v1beta1"))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrFlags, utilerrors.NewAggregate(errs))
	}

	cfg := &Config{matchers: make([]*webhook.Matcher, len(list))}
	for _, m := range list {
		a := apiserverv1.AuthorizerConfiguration{Type: m, Name: nameForMode(m)}
		if m == TypeWebhook {
			file := webhookConfigFile
			a.Name = legacyWebhookName
			a.Webhook = &apiserverv1.WebhookConfiguration{
				AuthorizedTTL:              metav1.Duration{Duration: authorizedTTL},
				CacheAuthorizedRequests:    ptrTo(authorizedTTL != 0),
				UnauthorizedTTL:            metav1.Duration{Duration: unauthorizedTTL},
				CacheUnauthorizedRequests:  ptrTo(unauthorizedTTL != 0),
				Timeout:                    metav1.Duration{Duration: legacyWebhookTimeout},
				FailurePolicy:              apiserverv1.FailurePolicyNoOpinion,
				SubjectAccessReviewVersion: webhookVersion,
				ConnectionInfo: apiserverv1.WebhookConnectionInfo{
					Type:           apiserverv1.AuthorizationWebhookConnectionInfoTypeKubeConfigFile,
					KubeConfigFile: &file,
				},
			}
		}
		cfg.authorizers = append(cfg.authorizers, a)
	}
	return cfg, nil
}

func ptrTo[T any](v T) *T { return &v }
