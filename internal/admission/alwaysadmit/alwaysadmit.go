package alwaysadmit

import (
	"context"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "AlwaysAdmit"

// Plugin is AlwaysAdmit.
type Plugin struct{}

var (
	_ admission.Mutator   = Plugin{}
	_ admission.Validator = Plugin{}
)

// New returns the plugin.
func New() Plugin { return Plugin{} }

// Admit implements admission.Mutator.
func (Plugin) Admit(context.Context, *admission.Attributes) error { return nil }

// Validate implements admission.Validator.
func (Plugin) Validate(context.Context, *admission.Attributes) error { return nil }
