package admission

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/portcullis/portcullis/internal/request"
)

// Operation is the admission operation of a request.
type Operation string

// The operations kube-apiserver reports to admission.
const (
	Create  Operation = "CREATE"
	Update  Operation = "UPDATE"
	Delete  Operation = "DELETE"
	Connect Operation = "CONNECT"
)

// Attributes describe one write to admission plugins.
type Attributes struct {
	Kind        schema.GroupVersionKind
	Resource    schema.GroupVersionResource
	Subresource string
	// RequestKind, RequestResource and RequestSubResource are what the
	// client asked for (they differ from Kind and Resource only when a
	// request is converted to an equivalent resource).
	RequestKind        schema.GroupVersionKind
	RequestResource    schema.GroupVersionResource
	RequestSubResource string
	Name               string
	Namespace          string
	Operation          Operation
	UserInfo           user.Info
	// Object is the new object (nil on delete); mutating plugins change it in place
	// or replace it.
	Object runtime.Object
	// OldObject is the stored object on update and delete.
	OldObject runtime.Object
	// Options is the CreateOptions, UpdateOptions, PatchOptions or DeleteOptions.
	Options runtime.Object
	DryRun  bool
	// Equivalents, when set, knows the other versions Resource is served
	// in and converts between them, for matchPolicy Equivalent (nil: the
	// resource is served in one version only).
	Equivalents Equivalents
}

// Mutator may change Attributes.Object, or reject the request with an error
// (an *apierrors.StatusError chooses the response).
type Mutator interface {
	Admit(ctx context.Context, a *Attributes) error
}

// Validator may reject a request but not change it.
type Validator interface {
	Validate(ctx context.Context, a *Attributes) error
}

// MutatorFunc adapts a function to Mutator.
type MutatorFunc func(ctx context.Context, a *Attributes) error

// Admit calls f.
func (f MutatorFunc) Admit(ctx context.Context, a *Attributes) error { return f(ctx, a) }

// ValidatorFunc adapts a function to Validator.
type ValidatorFunc func(ctx context.Context, a *Attributes) error

// Validate calls f.
func (f ValidatorFunc) Validate(ctx context.Context, a *Attributes) error { return f(ctx, a) }

// Chain runs mutators in order (with a second round when one asks for
// reinvocation), then validators in order; the first error stops it.
type Chain struct {
	Mutators   []Mutator
	Validators []Validator
	// MutatorNames and ValidatorNames name each plugin for the decision
	// trace (parallel to Mutators and Validators; nil: not traced).
	MutatorNames, ValidatorNames []string
}

// ErrNoChain refuses a request when there is no chain at all: a missing
// chain must not admit everything (an empty one does, deliberately).
var ErrNoChain = apierrors.NewInternalError(errors.New("admission: no admission chain"))

// Admit runs every mutator.
func (c *Chain) Admit(ctx context.Context, a *Attributes) error {
	if c == nil {
		return ErrNoChain
	}
	names := c.MutatorNames
	if len(names) != len(c.Mutators) {
		names = nil
	}
	return admitRounds(ctx, a, c.Mutators, names)
}

// Validate runs every validator.
func (c *Chain) Validate(ctx context.Context, a *Attributes) error {
	if c == nil {
		return ErrNoChain
	}
	var st *request.State
	if len(c.ValidatorNames) == len(c.Validators) {
		st = traced(ctx, c.ValidatorNames)
	}
	for i, v := range c.Validators {
		if st == nil {
			if err := v.Validate(ctx, a); err != nil {
				return err
			}
			continue
		}
		m, start := st.Mark(), time.Now()
		err := v.Validate(ctx, a)
		recordStep(st, c.ValidatorNames[i], request.PhaseValidate, m, start, err)
		if err != nil {
			return err
		}
	}
	return nil
}

// traced returns the request state to trace into, nil when the chain has
// no names or the request keeps no trace.
func traced(ctx context.Context, names []string) *request.State {
	if names == nil {
		return nil
	}
	if st := request.StateFrom(ctx); st != nil && st.Trace {
		return st
	}
	return nil
}

// recordStep records one plugin's run, begun at m: its outcome, the audit
// annotations it added (which name the policies, bindings and webhooks
// that took part, in kube-apiserver's keys), the parts it recorded (what
// each of those decided) and how long it took.
func recordStep(st *request.State, name, phase string, m request.Mark, start time.Time, err error) {
	s := request.Step{Stage: request.StageAdmission, Name: name, Phase: phase, Outcome: "admitted", Micros: request.Since(start)}
	if err != nil {
		s.Outcome, s.Detail = "denied", err.Error()
	}
	st.AddStepAt(s, m)
}
