package serviceaccount

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "ServiceAccount"

// The names and paths kube-apiserver's plugin uses.
const (
	// DefaultServiceAccountName is the account of a pod that names none.
	DefaultServiceAccountName = "default"
	// EnforceMountableSecretsAnnotation on a service account, when it
	// parses as true, limits its pods to the secrets it lists.
	EnforceMountableSecretsAnnotation = "kubernetes.io/enforce-mountable-secrets"
	// VolumeNamePrefix starts the name of the token volume; a volume
	// whose name starts with it is taken to be that volume.
	VolumeNamePrefix = "kube-api-access-"
	// TokenMountPath is where containers find the token, CA bundle and
	// namespace.
	TokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
	// RootCAConfigMap is the ConfigMap whose ca.crt the volume projects
	// (published in every namespace by the root-ca-cert-publisher).
	RootCAConfigMap = "kube-root-ca.crt"
	// TokenExpirationSeconds is the lifetime the volume asks for: one
	// hour and seven seconds, kube-apiserver's marker of a token whose
	// use after an hour is only warned about when the server extends
	// tokens.
	TokenExpirationSeconds int64 = 60*60 + 7
)

// ServiceAccounts reads a service account; a missing one is an apierrors
// NotFound.
type ServiceAccounts func(ctx context.Context, ns, name string) (*corev1.ServiceAccount, error)

// Wait pauses for d between lookups of an account not found yet; it
// returns early with an error when ctx ends.
type Wait func(ctx context.Context, d time.Duration) error

// Plugin is the ServiceAccount admission plugin.
type Plugin struct {
	cached, live ServiceAccounts
	suffix       func() string
	wait         Wait
	interval     func() time.Duration
}

// Option changes what New builds, for tests.
type Option func(*Plugin)

// WithVolumeNameSuffix replaces the random five characters after
// VolumeNamePrefix.
func WithVolumeNameSuffix(f func() string) Option { return func(p *Plugin) { p.suffix = f } }

// WithWait replaces the pause between lookups of a missing account.
func WithWait(w Wait) Option { return func(p *Plugin) { p.wait = w } }

// New returns the plugin. cached is the usual read (an informer's
// cache); live reads storage and is asked only when cached does not find
// the account, as kube-apiserver falls back from its lister to a GET.
// Both may be the same function.
func New(cached, live ServiceAccounts, opts ...Option) (*Plugin, error) {
	if cached == nil || live == nil {
		return nil, errors.New("serviceaccount admission: need both service account lookups")
	}
	p := &Plugin{
		cached: cached,
		live:   live,
		suffix: func() string { return utilrand.String(5) },
		wait:   sleep,
		// One interval for all the retries of a request, between 100 and
		// 200ms, so that requests waiting for the same account spread out.
		interval: func() time.Duration { return time.Duration(100+rand.Int64N(100)) * time.Millisecond },
	}
	for _, o := range opts {
		o(p)
	}
	return p, nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

var (
	_ admission.Mutator   = (*Plugin)(nil)
	_ admission.Validator = (*Plugin)(nil)
)

// pod is the pod a request carries when the plugin looks at the request:
// a pod itself or its ephemeralcontainers subresource.
func pod(a *admission.Attributes) (*corev1.Pod, bool) {
	if a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil, false
	}
	if a.Subresource != "" && a.Subresource != "ephemeralcontainers" {
		return nil, false
	}
	p, ok := a.Object.(*corev1.Pod)
	return p, ok && p != nil
}

func isMirror(p *corev1.Pod) bool {
	_, ok := p.Annotations[corev1.MirrorPodAnnotationKey]
	return ok
}

// Admit implements admission.Mutator: it fills in the service account,
// the token volume and the image pull secrets of a pod being created, and
// then checks it as Validate does (kube-apiserver's plugin does both).
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	pd, ok := pod(a)
	if !ok || a.Operation != admission.Create {
		return nil
	}
	// A mirror pod's spec must stay what the kubelet wrote: it deletes a
	// mirror pod that differs from its static pod.
	if isMirror(pd) {
		return p.validateCreate(ctx, a, pd)
	}
	if pd.Spec.ServiceAccountName == "" {
		pd.Spec.ServiceAccountName = DefaultServiceAccountName
		// The alias is kept equal, as defaulting would have.
		pd.Spec.DeprecatedServiceAccount = DefaultServiceAccountName //nolint:staticcheck // the alias is still served
	}
	sa, err := p.lookup(ctx, a.Namespace, pd.Spec.ServiceAccountName)
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("error looking up service account %s/%s: %w", a.Namespace, pd.Spec.ServiceAccountName, err))
	}
	if automount(sa, pd) {
		p.mountToken(pd)
	}
	if len(pd.Spec.ImagePullSecrets) == 0 && len(sa.ImagePullSecrets) > 0 {
		pd.Spec.ImagePullSecrets = make([]corev1.LocalObjectReference, len(sa.ImagePullSecrets))
		for i, s := range sa.ImagePullSecrets {
			pd.Spec.ImagePullSecrets[i] = corev1.LocalObjectReference{Name: s.Name}
		}
	}
	return p.validateCreate(ctx, a, pd)
}

// Validate implements admission.Validator.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	pd, ok := pod(a)
	if !ok {
		return nil
	}
	if a.Operation == admission.Update && a.Subresource == "ephemeralcontainers" {
		return p.validateEphemeral(ctx, a, pd)
	}
	if a.Operation != admission.Create {
		return nil
	}
	return p.validateCreate(ctx, a, pd)
}

func (p *Plugin) validateCreate(ctx context.Context, a *admission.Attributes, pd *corev1.Pod) error {
	if isMirror(pd) {
		return validateMirror(a, pd)
	}
	if pd.Spec.ServiceAccountName == "" {
		return admission.NewForbidden(a, fmt.Errorf("no service account specified for pod %s/%s", a.Namespace, pd.Name))
	}
	sa, err := p.lookup(ctx, a.Namespace, pd.Spec.ServiceAccountName)
	if err != nil {
		// %v, not %w: kube-apiserver flattens the lookup error here, so a
		// Forbidden from the lookup is wrapped rather than passed through.
		return admission.NewForbidden(a, fmt.Errorf("error looking up service account %s/%s: %v", a.Namespace, pd.Spec.ServiceAccountName, err)) //nolint:errorlint // see above
	}
	if enforceMountable(sa) {
		if err := checkMountable(sa, pd); err != nil {
			return admission.NewForbidden(a, err)
		}
	}
	return nil
}

func validateMirror(a *admission.Attributes, pd *corev1.Pod) error {
	if pd.Spec.ServiceAccountName != "" {
		return admission.NewForbidden(a, errors.New("a mirror pod may not reference service accounts"))
	}
	if referencesSecrets(pd) {
		return admission.NewForbidden(a, errors.New("a mirror pod may not reference secrets"))
	}
	for _, v := range pd.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, s := range v.Projected.Sources {
			if s.ServiceAccountToken != nil {
				return admission.NewForbidden(a, errors.New("a mirror pod may not use ServiceAccountToken volume projections"))
			}
		}
	}
	return nil
}

func (p *Plugin) validateEphemeral(ctx context.Context, a *admission.Attributes, pd *corev1.Pod) error {
	if pd.Spec.ServiceAccountName == "" {
		return admission.NewForbidden(a, fmt.Errorf("no service account specified for pod %s/%s", a.Namespace, pd.Name))
	}
	sa, err := p.lookup(ctx, a.Namespace, pd.Spec.ServiceAccountName)
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("error looking up service account %s/%s: %w", a.Namespace, pd.Spec.ServiceAccountName, err))
	}
	if !enforceMountable(sa) {
		return nil
	}
	if err := checkEphemeralMountable(sa, pd); err != nil {
		// kube-apiserver returns this refusal unwrapped, which its
		// handlers answer with 500 and no reason.
		return unwrappedError(err)
	}
	return nil
}

// automount says whether the pod gets the token volume: the pod's choice
// wins over the account's, and both unset means yes.
func automount(sa *corev1.ServiceAccount, pd *corev1.Pod) bool {
	if pd.Spec.AutomountServiceAccountToken != nil {
		return *pd.Spec.AutomountServiceAccountToken
	}
	if sa.AutomountServiceAccountToken != nil {
		return *sa.AutomountServiceAccountToken
	}
	return true
}
