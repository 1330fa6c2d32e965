package authzconfig

import (
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"

	"github.com/portcullis/portcullis/internal/authz/webhook"
)

// The authorizer types portcullis knows, as spelled in --authorization-mode
// and in the type field of the configuration file.
const (
	TypeABAC        = "ABAC"
	TypeAlwaysAllow = "AlwaysAllow"
	TypeAlwaysDeny  = "AlwaysDeny"
	TypeNode        = "Node"
	TypeRBAC        = "RBAC"
	TypeWebhook     = "Webhook"
)

// knownTypes, sorted as kube-apiserver lists them in messages.
var knownTypes = []string{TypeABAC, TypeAlwaysAllow, TypeAlwaysDeny, TypeNode, TypeRBAC, TypeWebhook}

// Config is a validated authorization configuration: the ordered
// authorizers with defaults applied and match conditions compiled. It is
// immutable; make one with Parse, Load or FromFlags.
type Config struct {
	authorizers []apiserverv1.AuthorizerConfiguration
	// matchers[i] holds the compiled match conditions of authorizers[i]
	// (nil when there are none or it is not a webhook).
	matchers []*webhook.Matcher
	// hash is configfile.Hash of the file content the configuration came
	// from ("" from flags): the controller compares it with what is on
	// disk.
	hash string
}

// Authorizers returns a copy of the ordered authorizer configurations,
// defaults applied.
func (c *Config) Authorizers() []apiserverv1.AuthorizerConfiguration {
	out := make([]apiserverv1.AuthorizerConfiguration, len(c.authorizers))
	for i := range c.authorizers {
		c.authorizers[i].DeepCopyInto(&out[i])
	}
	return out
}

// Has reports whether an authorizer of the type is configured, so that
// the server builds RBAC and Node only when they are used.
func (c *Config) Has(typ string) bool {
	for _, a := range c.authorizers {
		if a.Type == typ {
			return true
		}
	}
	return false
}

// nameForMode is the name kube-apiserver requires for a non-webhook
// authorizer, and gives it when converting --authorization-mode.
func nameForMode(mode string) string { return strings.ToLower(mode) }

// InvalidError lists every problem of an invalid configuration, each with
// its field path. It matches ErrInvalid.
type InvalidError struct {
	Errs field.ErrorList
}

func (e *InvalidError) Error() string { return e.Errs.ToAggregate().Error() }

// Unwrap makes errors.Is(err, ErrInvalid) hold.
func (e *InvalidError) Unwrap() error { return ErrInvalid }
