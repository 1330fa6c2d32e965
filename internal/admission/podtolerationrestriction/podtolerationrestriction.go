package podtolerationrestriction

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/admission/tolerations"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "PodTolerationRestriction"

// The namespace annotations holding default and allowed tolerations.
const (
	DefaultTolerationsAnnotation = "scheduler.alpha.kubernetes.io/defaultTolerations"
	WhitelistAnnotation          = "scheduler.alpha.kubernetes.io/tolerationsWhitelist"
)

// Namespaces reads a namespace; a missing one is an apierrors NotFound.
type Namespaces func(ctx context.Context, name string) (*corev1.Namespace, error)

// Plugin is PodTolerationRestriction.
type Plugin struct {
	get    Namespaces
	config *Configuration
}

var (
	_ admission.Mutator   = (*Plugin)(nil)
	_ admission.Validator = (*Plugin)(nil)
)

// New returns the plugin configured by config (YAML or JSON; empty for
// none), reading namespaces through get.
func New(config []byte, get Namespaces) (*Plugin, error) {
	c, err := decodeConfig(config)
	if err != nil {
		return nil, err
	}
	return &Plugin{get: get, config: c}, nil
}

var memoryPressure = corev1.Toleration{Key: corev1.TaintNodeMemoryPressure, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}

// Admit implements admission.Mutator.
func (p *Plugin) Admit(ctx context.Context, a *admission.Attributes) error {
	pod := podOf(a)
	if pod == nil {
		return nil
	}
	var extra []corev1.Toleration
	if a.Operation == admission.Create {
		ns, err := p.namespace(ctx, a.Namespace)
		if err != nil {
			return err
		}
		ts, err := annotated(ns, DefaultTolerationsAnnotation)
		if err != nil {
			return err
		}
		if ts == nil {
			ts = p.config.Default
		}
		extra = append(extra, ts...)
	}
	if !bestEffort(pod) {
		extra = append(extra, memoryPressure)
	}
	if len(extra) > 0 {
		pod.Spec.Tolerations = tolerations.Merge(pod.Spec.Tolerations, extra)
	}
	return p.Validate(ctx, a)
}

// Validate implements admission.Validator.
func (p *Plugin) Validate(ctx context.Context, a *admission.Attributes) error {
	pod := podOf(a)
	if pod == nil || len(pod.Spec.Tolerations) == 0 {
		return nil
	}
	ns, err := p.namespace(ctx, a.Namespace)
	if err != nil {
		return err
	}
	whitelist, err := annotated(ns, WhitelistAnnotation)
	if err != nil {
		return err
	}
	scope := "namespace"
	if whitelist == nil {
		whitelist, scope = p.config.Whitelist, "cluster"
	}
	if !tolerations.Allowed(pod.Spec.Tolerations, whitelist) {
		return unknown(fmt.Sprintf("pod tolerations (possibly merged with namespace default tolerations) conflict with its %s whitelist", scope))
	}
	return nil
}

// podOf returns the pod of a pod create or update, nil for any other
// request (kube-apiserver skips a pods request without a pod too).
func podOf(a *admission.Attributes) *corev1.Pod {
	if a.Operation != admission.Create && a.Operation != admission.Update {
		return nil
	}
	if a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return nil
	}
	pod, _ := a.Object.(*corev1.Pod)
	return pod
}

func (p *Plugin) namespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	ns, err := p.get(ctx, name)
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, apierrors.NewInternalError(err)
	}
	return ns, err
}

// annotated returns the tolerations of the namespace's annotation key:
// nil without it, empty (not nil) for an empty value.
func annotated(ns *corev1.Namespace, key string) ([]corev1.Toleration, error) {
	v, ok := ns.Annotations[key]
	if !ok {
		return nil, nil
	}
	if v == "" {
		return []corev1.Toleration{}, nil
	}
	var ts []corev1.Toleration
	if err := json.Unmarshal([]byte(v), &ts); err != nil {
		return nil, unknown(err.Error())
	}
	return ts, nil
}

// bestEffort says whether the pod's QoS class is BestEffort (see doc.go).
func bestEffort(pod *corev1.Pod) bool {
	if pod.Status.QOSClass != "" {
		return pod.Status.QOSClass == corev1.PodQOSBestEffort
	}
	if r := pod.Spec.Resources; r != nil && podLevelSet(r) {
		return unrequested(r)
	}
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			if !unrequested(&cs[i].Resources) {
				return false
			}
		}
	}
	return true
}

// podLevelSet says whether pod-level resources name a resource that
// pod-level resource management supports.
func podLevelSet(r *corev1.ResourceRequirements) bool {
	for _, l := range []corev1.ResourceList{r.Requests, r.Limits} {
		for n := range l {
			if n == corev1.ResourceCPU || n == corev1.ResourceMemory || strings.HasPrefix(string(n), corev1.ResourceHugePagesPrefix) {
				return true
			}
		}
	}
	return false
}

// unrequested says whether r requests and limits no cpu and no memory,
// which is what makes requirements BestEffort.
func unrequested(r *corev1.ResourceRequirements) bool {
	for _, n := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := r.Requests[n], r.Limits[n]
		if !req.IsZero() || !lim.IsZero() {
			return false
		}
	}
	return true
}

// unknown is how kube-apiserver answers a plugin's plain error: a 500
// without a reason whose message is the error's text.
func unknown(msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonUnknown, Message: msg}}
}
