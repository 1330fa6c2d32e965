package authzconfig

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
)

func TestFromFlagsErrors(t *testing.T) {
	tests := []struct {
		name    string
		modes   []string
		file    string
		version string
		want    string
	}{
		{"no mode", nil, "", "v1beta1", "invalid authorization flags: at least one authorization-mode must be passed"},
		{"unknown mode", []string{"RBAC", "Magic"}, "", "v1beta1", `invalid authorization flags: authorization-mode "Magic" is not a valid mode`},
		{"empty element", []string{"RBAC,"}, "", "v1beta1", `invalid authorization flags: authorization-mode "" is not a valid mode`},
		{"webhook without file", []string{"Webhook"}, "", "v1beta1", "invalid authorization flags: authorization-mode Webhook's authorization config file not passed"},
		{"file without webhook", []string{"RBAC"}, "/etc/webhook.kubeconfig", "v1beta1", "invalid authorization flags: cannot specify --authorization-webhook-config-file without mode Webhook"},
		{"repeated", []string{"Node,RBAC", "RBAC"}, "", "v1beta1", `invalid authorization flags: authorization-mode ["Node" "RBAC" "RBAC"] has mode specified more than once`},
		{"bad webhook version", []string{"Webhook"}, "/etc/webhook.kubeconfig", "v2", `invalid authorization flags: unsupported webhook authorizer version "v2", supported versions are "v1", "v1beta1"`},
		{"several", []string{"Webhook", "Webhook"}, "", "v1beta1", "invalid authorization flags: [authorization-mode Webhook's authorization config file not passed, authorization-mode [\"Webhook\" \"Webhook\"] has mode specified more than once]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromFlags(tt.modes, "", tt.file, tt.version, DefaultWebhookAuthorizedTTL, DefaultWebhookUnauthorizedTTL)
			if err == nil || err.Error() != tt.want || !errors.Is(err, ErrFlags) {
				t.Fatalf("err = %v\nwant %s", err, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		name, policy, want string
		modes              []string
	}{
		{"ABAC without a policy file", "", "invalid authorization flags: authorization-mode ABAC's authorization policy file not passed", []string{"ABAC"}},
		{"policy file without ABAC", "/etc/abac.jsonl", "invalid authorization flags: cannot specify --authorization-policy-file without mode ABAC", []string{"RBAC"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromFlags(tt.modes, tt.policy, "", "v1beta1", 0, 0)
			if err == nil || err.Error() != tt.want || !errors.Is(err, ErrFlags) {
				t.Fatalf("err = %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestFromFlags(t *testing.T) {
	file := "/etc/kubernetes/webhook.kubeconfig"
	webhook := func(version string, authorized, unauthorized time.Duration) apiserverv1.AuthorizerConfiguration {
		return apiserverv1.AuthorizerConfiguration{Type: "Webhook", Name: "default", Webhook: &apiserverv1.WebhookConfiguration{
			AuthorizedTTL:              metav1.Duration{Duration: authorized},
			CacheAuthorizedRequests:    ptrTo(authorized != 0),
			UnauthorizedTTL:            metav1.Duration{Duration: unauthorized},
			CacheUnauthorizedRequests:  ptrTo(unauthorized != 0),
			Timeout:                    metav1.Duration{Duration: 30 * time.Second},
			SubjectAccessReviewVersion: version,
			FailurePolicy:              "NoOpinion",
			ConnectionInfo:             apiserverv1.WebhookConnectionInfo{Type: "KubeConfigFile", KubeConfigFile: &file},
		}}
	}
	tests := []struct {
		name         string
		modes        []string
		file         string
		version      string
		authorized   time.Duration
		unauthorized time.Duration
		want         []apiserverv1.AuthorizerConfiguration
	}{
		{"portcullis default", []string{"Node,RBAC"}, "", DefaultWebhookVersion, DefaultWebhookAuthorizedTTL, DefaultWebhookUnauthorizedTTL,
			[]apiserverv1.AuthorizerConfiguration{{Type: "Node", Name: "node"}, {Type: "RBAC", Name: "rbac"}}},
		{"always", []string{"AlwaysAllow"}, "", "", 0, 0, []apiserverv1.AuthorizerConfiguration{{Type: "AlwaysAllow", Name: "alwaysallow"}}},
		{"webhook between", []string{"Node", "Webhook", "RBAC", "AlwaysDeny"}, file, DefaultWebhookVersion, DefaultWebhookAuthorizedTTL, DefaultWebhookUnauthorizedTTL,
			[]apiserverv1.AuthorizerConfiguration{
				{Type: "Node", Name: "node"},
				webhook("v1beta1", 5*time.Minute, 30*time.Second),
				{Type: "RBAC", Name: "rbac"},
				{Type: "AlwaysDeny", Name: "alwaysdeny"},
			}},
		{"webhook v1 without cache", []string{"Webhook"}, file, "v1", 0, 0,
			[]apiserverv1.AuthorizerConfiguration{webhook("v1", 0, 0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := FromFlags(tt.modes, "", tt.file, tt.version, tt.authorized, tt.unauthorized)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, cfg.Authorizers()); d != "" {
				t.Fatalf("(-want +got):\n%s", d)
			}
		})
	}
}
