package podsecurity

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/request"
	"github.com/portcullis/portcullis/internal/version"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "PodSecurity"

// Namespaces reads a namespace; a missing one is an apierrors NotFound.
type Namespaces func(ctx context.Context, name string) (*corev1.Namespace, error)

// Pods lists the pods of a namespace. It is called only when a namespace's
// enforce level is made stricter; ctx carries the time budget of that check.
type Pods func(ctx context.Context, namespace string) ([]*corev1.Pod, error)

// Deps are what the plugin reads and where it reports.
type Deps struct {
	Namespaces Namespaces
	Pods       Pods
	// Metrics registers pod_security_evaluations_total,
	// pod_security_exemptions_total and pod_security_errors_total; nil
	// leaves them unregistered.
	Metrics prometheus.Registerer
}

// kube-apiserver's limits on the dry run of a namespace's pods when its
// enforce level changes.
const (
	namespaceMaxPods    = 3000
	namespacePodTimeout = time.Second
)

// ErrMissingDependency is returned by New without a namespace or pod reader.
var ErrMissingDependency = errors.New("podsecurity: missing dependency")

// Plugin is PodSecurity, a validating plugin.
type Plugin struct {
	cfg        *config
	evaluator  policy.Evaluator
	namespaces Namespaces
	pods       Pods
	metrics    *recorder
	// maxPods and podTimeout bound a namespace's dry run (tests lower them).
	maxPods    int
	podTimeout time.Duration
}

var _ admission.Validator = (*Plugin)(nil)

// New returns the plugin for a PodSecurityConfiguration (empty: the
// defaults, privileged everywhere and no exemptions).
func New(cfg []byte, deps Deps) (*Plugin, error) {
	if deps.Namespaces == nil || deps.Pods == nil {
		return nil, fmt.Errorf("%w: %s needs a namespace and a pod reader", ErrMissingDependency, Name)
	}
	c, err := loadConfig(cfg)
	if err != nil {
		return nil, err
	}
	// The checks at the served version: portcullis does not emulate an
	// older one, so "latest" and pins past it use the newest checks.
	evaluator, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: could not create the checks: %w", Name, err)
	}
	rec, err := newRecorder(deps.Metrics, servedVersion())
	if err != nil {
		return nil, fmt.Errorf("%s metrics: %w", Name, err)
	}
	return &Plugin{
		cfg:        c,
		evaluator:  evaluator,
		namespaces: deps.Namespaces,
		pods:       deps.Pods,
		metrics:    rec,
		maxPods:    namespaceMaxPods,
		podTimeout: namespacePodTimeout,
	}, nil
}

// servedVersion is the Kubernetes minor portcullis serves, the version
// kube-apiserver's metrics compare pinned policies with.
func servedVersion() api.Version {
	info := version.Info()
	major, errMajor := strconv.Atoi(info.Major)
	minor, errMinor := strconv.Atoi(info.Minor)
	if errMajor != nil || errMinor != nil {
		return api.LatestVersion()
	}
	return api.MajorMinorVersion(major, minor)
}

var (
	podsGR       = corev1.Resource("pods")
	namespacesGR = corev1.Resource("namespaces")

	// podTemplateResources embed a pod template: they get warnings and
	// audit annotations, never a refusal.
	podTemplateResources = map[schema.GroupResource]bool{
		corev1.Resource("replicationcontrollers"): true,
		corev1.Resource("podtemplates"):           true,
		appsv1.Resource("replicasets"):            true,
		appsv1.Resource("deployments"):            true,
		appsv1.Resource("statefulsets"):           true,
		appsv1.Resource("daemonsets"):             true,
		batchv1.Resource("jobs"):                  true,
		batchv1.Resource("cronjobs"):              true,
	}
)

// Validate implements admission.Validator.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	var d decision
	switch gr := a.Resource.GroupResource(); {
	case gr == namespacesGR:
		d = p.validateNamespace(ctx, a)
	case gr == podsGR:
		d = p.validatePod(ctx, a)
	case podTemplateResources[gr]:
		d = p.validatePodTemplate(ctx, a)
	default:
		return nil
	}
	if st := request.StateFrom(ctx); st != nil {
		for _, w := range d.warnings {
			st.AddWarning(w)
		}
		for k, v := range d.annotations {
			st.AddAnnotation(api.AuditAnnotationPrefix+k, v)
		}
	}
	if d.refusal == nil {
		return nil
	}
	// kube-apiserver starts from its generic refusal and takes every part
	// the decision sets, so a part the decision leaves unset (a bad
	// request's details) is the generic one's.
	var se *apierrors.StatusError
	if !errors.As(admission.NewForbidden(a, errors.New("Not allowed by PodSecurity")), &se) {
		return apierrors.NewInternalError(fmt.Errorf("%s: refusal without a status", Name))
	}
	out := se.ErrStatus
	if d.refusal.Message != "" {
		out.Message = d.refusal.Message
	}
	if d.refusal.Reason != "" {
		out.Reason = d.refusal.Reason
	}
	if d.refusal.Details != nil {
		out.Details = d.refusal.Details
	}
	if d.refusal.Code != 0 {
		out.Code = d.refusal.Code
	}
	return &apierrors.StatusError{ErrStatus: out}
}

// decision is the outcome of one request: admitted unless refusal is set,
// with the warnings for the client and the audit annotations (keys without
// the pod-security.kubernetes.io/ prefix).
type decision struct {
	refusal     *metav1.Status
	warnings    []string
	annotations map[string]string
}

// Reasons of exempt decisions, the value of the exempt annotation.
const (
	exemptNamespace    = "namespace"
	exemptUser         = "user"
	exemptRuntimeClass = "runtimeClass"
)

func exempt(reason string) decision {
	return decision{annotations: map[string]string{api.ExemptionReasonAnnotationKey: reason}}
}

func forbidden(a *admission.Attributes, err error) *metav1.Status {
	return &apierrors.NewForbidden(a.Resource.GroupResource(), a.Name, err).ErrStatus
}

func invalid(a *admission.Attributes, errs field.ErrorList) decision {
	return decision{refusal: &apierrors.NewInvalid(a.Kind.GroupKind(), a.Name, errs).ErrStatus}
}

// failed refuses a request that could not be evaluated; the audit
// annotation carries the cause the client is not shown.
func failed(cause error, status *metav1.Status) decision {
	detail := status.Message
	if cause != nil {
		detail = fmt.Sprintf("%s: %v", status.Message, cause)
	}
	return decision{refusal: status, annotations: map[string]string{"error": detail}}
}

func userName(a *admission.Attributes) string {
	if a.UserInfo == nil {
		return ""
	}
	return a.UserInfo.GetName()
}
