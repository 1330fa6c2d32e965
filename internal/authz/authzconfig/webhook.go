package authzconfig

import (
	"fmt"
	"log/slog"

	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"

	"github.com/portcullis/portcullis/internal/authz/webhook"
)

// newWebhook makes the webhook authorizer of one configuration entry.
func newWebhook(name string, w *apiserverv1.WebhookConfiguration, m *webhook.Matcher, deps Deps, ms *metrics, log *slog.Logger) (*webhook.Authorizer, error) {
	if w == nil || w.ConnectionInfo.KubeConfigFile == nil {
		return nil, fmt.Errorf("%w: webhook %q has no kubeConfigFile", ErrNotSupported, name)
	}
	authorizedTTL, unauthorizedTTL := w.AuthorizedTTL.Duration, w.UnauthorizedTTL.Duration
	if w.CacheAuthorizedRequests != nil && !*w.CacheAuthorizedRequests {
		authorizedTTL = 0
	}
	if w.CacheUnauthorizedRequests != nil && !*w.CacheUnauthorizedRequests {
		unauthorizedTTL = 0
	}
	az, err := webhook.New(webhook.Config{
		Name:            name,
		KubeConfigFile:  *w.ConnectionInfo.KubeConfigFile,
		Version:         w.SubjectAccessReviewVersion,
		Timeout:         w.Timeout.Duration,
		AuthorizedTTL:   authorizedTTL,
		UnauthorizedTTL: unauthorizedTTL,
		FailurePolicy:   w.FailurePolicy,
		Matcher:         m,
		Backoff:         deps.WebhookBackoff,
		Metrics:         ms.webhook,
		Logger:          log,
	})
	if err != nil {
		return nil, fmt.Errorf("authorizer %q: %w", name, err)
	}
	return az, nil
}
