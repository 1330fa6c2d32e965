package alwaysdeny

import (
	"context"
	"errors"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "AlwaysDeny"

// ErrDenied is the reason of every refusal.
var ErrDenied = errors.New("admission control is denying all modifications")

// Plugin is AlwaysDeny.
type Plugin struct{}

var (
	_ admission.Mutator   = Plugin{}
	_ admission.Validator = Plugin{}
)

// New returns the plugin.
func New() Plugin { return Plugin{} }

// Admit implements admission.Mutator.
func (Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	return admission.NewForbidden(a, ErrDenied)
}

// Validate implements admission.Validator.
func (Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	return admission.NewForbidden(a, ErrDenied)
}
