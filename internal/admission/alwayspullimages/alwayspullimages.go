package alwayspullimages

import (
	"context"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/portcullis/portcullis/internal/admission"
)

// Name is the plugin's name in --enable-admission-plugins.
const Name = "AlwaysPullImages"

// Plugin is AlwaysPullImages.
type Plugin struct{}

var (
	_ admission.Mutator   = Plugin{}
	_ admission.Validator = Plugin{}
)

// New returns the plugin.
func New() Plugin { return Plugin{} }

// errNotPod is kube-apiserver's answer to a pods request without a pod.
var errNotPod = apierrors.NewBadRequest("Resource was marked with kind Pod but was unable to be converted")

// Admit implements admission.Mutator.
func (Plugin) Admit(_ context.Context, a *admission.Attributes) error {
	if ignore(a) {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return errNotPod
	}
	visitContainers(&pod.Spec, func(c *corev1.Container, _ *field.Path) {
		c.ImagePullPolicy = corev1.PullAlways
	})
	for i := range pod.Spec.Volumes {
		if img := pod.Spec.Volumes[i].Image; img != nil {
			img.PullPolicy = corev1.PullAlways
		}
	}
	return nil
}

// Validate implements admission.Validator.
func (Plugin) Validate(_ context.Context, a *admission.Attributes) error {
	if ignore(a) {
		return nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return errNotPod
	}
	var errs []error
	always := []string{string(corev1.PullAlways)}
	visitContainers(&pod.Spec, func(c *corev1.Container, p *field.Path) {
		if c.ImagePullPolicy != corev1.PullAlways {
			errs = append(errs, admission.NewForbidden(a, field.NotSupported(p.Child("imagePullPolicy"), c.ImagePullPolicy, always)))
		}
	})
	for i, v := range pod.Spec.Volumes {
		if v.Image != nil && v.Image.PullPolicy != corev1.PullAlways {
			p := field.NewPath("spec", "volumes").Index(i).Child("image", "pullPolicy")
			errs = append(errs, admission.NewForbidden(a, field.NotSupported(p, v.Image.PullPolicy, always)))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	// kube-apiserver returns the aggregate itself, which its response
	// writer, finding no API status in it, answers as an unknown 500.
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonUnknown,
		Message: utilerrors.NewAggregate(errs).Error(),
	}}
}

// ignore says whether a is outside the plugin: not a pod proper, not a
// create or update, or an update that brings no new image.
func ignore(a *admission.Attributes) bool {
	if a.Subresource != "" || a.Resource.Group != "" || a.Resource.Resource != "pods" {
		return true
	}
	switch a.Operation {
	case admission.Create:
		return false
	case admission.Update:
		return !newImages(a)
	}
	return true
}

// newImages says whether an update's pod names a container image the old
// pod did not have; anything but two pods counts as new, so the plugin
// then runs and answers kube-apiserver's bad request.
func newImages(a *admission.Attributes) bool {
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return true
	}
	old, ok := a.OldObject.(*corev1.Pod)
	if !ok {
		return true
	}
	had := map[string]bool{}
	visitContainers(&old.Spec, func(c *corev1.Container, _ *field.Path) { had[c.Image] = true })
	found := false
	visitContainers(&pod.Spec, func(c *corev1.Container, _ *field.Path) { found = found || !had[c.Image] })
	return found
}

// visitContainers calls f for the init, regular and ephemeral containers in
// that order, with the field path kube-apiserver reports for each.
func visitContainers(spec *corev1.PodSpec, f func(*corev1.Container, *field.Path)) {
	p := field.NewPath("spec")
	for i := range spec.InitContainers {
		f(&spec.InitContainers[i], p.Child("initContainers").Index(i))
	}
	for i := range spec.Containers {
		f(&spec.Containers[i], p.Child("containers").Index(i))
	}
	for i := range spec.EphemeralContainers {
		f((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon), p.Child("ephemeralContainers").Index(i))
	}
}
