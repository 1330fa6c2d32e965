package rest

import (
	"reflect"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/portcullis/portcullis/internal/crd/definition"
	"github.com/portcullis/portcullis/internal/registry"
)

// resetFields names the fields a write through (sub)resource may not set:
// the main resource cannot write status, the status subresource cannot
// write spec. Server-side apply uses it so such fields get no owner.
func resetFields(res *registry.Resource, sub string) map[fieldpath.APIVersion]fieldpath.Filter {
	if !res.Status {
		return nil
	}
	path := "status"
	if sub == "status" {
		path = "spec"
	}
	v := fieldpath.APIVersion(res.GVR.GroupVersion().String())
	return fieldpath.NewExcludeFilterSetMap(map[fieldpath.APIVersion]*fieldpath.Set{
		v: fieldpath.NewSet(fieldpath.MakePathOrDie(path)),
	})
}

// structField returns the addressable field name of a typed object, or an
// invalid value when the type has none.
func structField(obj runtime.Object, name string) reflect.Value {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	return v.Elem().FieldByName(name)
}

// copyField sets dst.name = src.name.
func copyField(dst, src runtime.Object, name string) {
	d, s := structField(dst, name), structField(src, name)
	if d.IsValid() && s.IsValid() && d.CanSet() {
		d.Set(s)
	}
}

// resetField sets obj.name to its zero value.
func resetField(obj runtime.Object, name string) {
	if f := structField(obj, name); f.IsValid() && f.CanSet() {
		f.Set(reflect.Zero(f.Type()))
	}
}

// specEqual reports whether a and b agree on everything but metadata and
// status, the part of an object whose changes bump metadata.generation.
func specEqual(a, b runtime.Object) bool {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	t := va.Type()
	for i := 0; i < t.NumField(); i++ {
		switch t.Field(i).Name {
		case "TypeMeta", "ObjectMeta", "Status":
			continue
		}
		if !equality.Semantic.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			return false
		}
	}
	return true
}

// prepareForCreate sets the fields the server owns on a new object.
func prepareForCreate(res *registry.Resource, obj runtime.Object, now time.Time) {
	m, _ := meta.Accessor(obj)
	m.SetUID(uuid.NewUUID())
	m.SetCreationTimestamp(metav1.NewTime(now.Truncate(time.Second)))
	m.SetDeletionTimestamp(nil)
	m.SetDeletionGracePeriodSeconds(nil)
	m.SetResourceVersion("")
	m.SetSelfLink("")
	if res.Generation {
		m.SetGeneration(1)
	} else {
		m.SetGeneration(0)
	}
	if u, ok := obj.(*unstructured.Unstructured); ok && res.Custom != nil {
		prepareCustomForCreate(res, u)
		return
	}
	prepareNetworkingForCreate(obj)
	prepareBatchForCreate(obj)
	switch o := obj.(type) {
	case *corev1.Namespace:
		o.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
		if !hasFinalizer(o.Spec.Finalizers, corev1.FinalizerKubernetes) {
			o.Spec.Finalizers = append(o.Spec.Finalizers, corev1.FinalizerKubernetes)
		}
	case *corev1.Service:
		prepareServiceIPs(o)
	case *corev1.Pod:
		o.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: podQOS(o)}
		// A negative grace period means "now", which the kubelet takes as 1 s.
		if g := o.Spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
			one := int64(1)
			o.Spec.TerminationGracePeriodSeconds = &one
		}
	case *corev1.PersistentVolume:
		o.Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumePending}
	case *corev1.PersistentVolumeClaim:
		o.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
	case *apiextensionsv1.CustomResourceDefinition:
		definition.PrepareForCreate(o)
	case *corev1.Node:
		// Kubelets register their node with its status.
	case *schedulingv1.PriorityClass:
		// kube-apiserver starts a priority class at generation 1 but never
		// bumps it.
		m.SetGeneration(1)
	case *autoscalingv1.HorizontalPodAutoscaler:
		resetField(obj, "Status")
		prepareAutoscalingForCreate(o)
	case *apiregistrationv1.APIService:
		// A group version served here is available as soon as it exists.
		o.Status = apiregistrationv1.APIServiceStatus{}
		if o.Spec.Service == nil {
			o.Status.Conditions = []apiregistrationv1.APIServiceCondition{{Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue,
				LastTransitionTime: metav1.Now(), Reason: "Local", Message: "Local APIServices are always available"}}
		}
	default:
		if res.Status {
			resetField(obj, "Status")
		}
	}
}

// prepareForUpdate carries the server-owned fields of old over to obj and
// keeps the part of the object the addressed (sub)resource may not change.
func prepareForUpdate(res *registry.Resource, sub string, obj, old runtime.Object) {
	m, _ := meta.Accessor(obj)
	om, _ := meta.Accessor(old)
	if m.GetUID() == "" {
		// A uid that differs is left for validation to refuse (immutable).
		m.SetUID(om.GetUID())
	}
	m.SetCreationTimestamp(om.GetCreationTimestamp())
	m.SetDeletionTimestamp(om.GetDeletionTimestamp())
	m.SetDeletionGracePeriodSeconds(om.GetDeletionGracePeriodSeconds())
	m.SetGeneration(om.GetGeneration())
	m.SetSelfLink("")
	if u, ok := obj.(*unstructured.Unstructured); ok && res.Custom != nil {
		prepareCustomForUpdate(res, sub, u, old.(*unstructured.Unstructured))
		return
	}
	switch sub {
	case "status":
		// Only status (and metadata) change through /status.
		for _, name := range structFieldNames(obj) {
			if name != "TypeMeta" && name != "ObjectMeta" && name != "Status" {
				copyField(obj, old, name)
			}
		}
	case "finalize":
		n, o := obj.(*corev1.Namespace), old.(*corev1.Namespace)
		n.Status = o.Status
	default:
		if res.Status {
			copyField(obj, old, "Status")
		}
		if crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
			definition.PrepareForUpdate(crd, old.(*apiextensionsv1.CustomResourceDefinition))
		}
		if res.Generation && !specEqual(obj, old) {
			m.SetGeneration(om.GetGeneration() + 1)
		}
		switch o := obj.(type) {
		case *appsv1.DaemonSet:
			carryTemplateGeneration(o, old.(*appsv1.DaemonSet))
		}
	}
	prepareNetworkingForUpdate(sub, obj, old)
	prepareAutoscalingForUpdate(sub, obj, old)
	if ns, ok := obj.(*corev1.Namespace); ok && sub != "finalize" {
		ns.Spec = old.(*corev1.Namespace).Spec
	}
}

func structFieldNames(obj runtime.Object) []string {
	t := reflect.TypeOf(obj).Elem()
	names := make([]string, t.NumField())
	for i := range names {
		names[i] = t.Field(i).Name
	}
	return names
}

func hasFinalizer(list []corev1.FinalizerName, f corev1.FinalizerName) bool {
	for _, x := range list {
		if x == f {
			return true
		}
	}
	return false
}

// podQOS derives a pod's QoS class from its containers' requests and limits.
func podQOS(p *corev1.Pod) corev1.PodQOSClass {
	containers := append(append([]corev1.Container(nil), p.Spec.InitContainers...), p.Spec.Containers...)
	any, guaranteed := false, true
	for _, c := range containers {
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			req, hasReq := c.Resources.Requests[r]
			lim, hasLim := c.Resources.Limits[r]
			if hasReq || hasLim {
				any = true
			}
			if !hasLim || (hasReq && req.Cmp(lim) != 0) {
				guaranteed = false
			}
		}
	}
	switch {
	case !any:
		return corev1.PodQOSBestEffort
	case guaranteed:
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

// prepareManaged runs after the field manager recorded an update, as
// kube-apiserver's storage does what follows: a service that becomes
// ExternalName releases its cluster IPs and internal traffic policy (its
// managed fields still name them), one that keeps them has their list and families filled in.
func prepareManaged(obj, old runtime.Object) {
	s, ok := obj.(*corev1.Service)
	if !ok {
		return
	}
	if s.Spec.Type == corev1.ServiceTypeExternalName && old.(*corev1.Service).Spec.Type != corev1.ServiceTypeExternalName {
		s.Spec.ClusterIP, s.Spec.ClusterIPs, s.Spec.IPFamilies, s.Spec.IPFamilyPolicy = "", nil, nil, nil
		s.Spec.InternalTrafficPolicy = nil
		return
	}
	prepareServiceIPs(s)
}

// templateGenerationKey is the annotation in which apps/v1 DaemonSets
// carry kube-apiserver's count of template changes.
const templateGenerationKey = "deprecated.daemonset.template.generation"

// setTemplateGeneration starts a new DaemonSet's count at 1. It runs
// before the field manager, which therefore records the annotation as the
// creator's, as kube-apiserver's does.
func setTemplateGeneration(ds *appsv1.DaemonSet) {
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[templateGenerationKey] = "1"
}

// carryTemplateGeneration keeps the count of template changes, adding one
// when the template changes.
func carryTemplateGeneration(ds, old *appsv1.DaemonSet) {
	gen, err := strconv.ParseInt(old.Annotations[templateGenerationKey], 10, 64)
	if err != nil {
		return
	}
	if !equality.Semantic.DeepEqual(ds.Spec.Template, old.Spec.Template) {
		gen++
	}
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[templateGenerationKey] = strconv.FormatInt(gen, 10)
}

// prepareServiceIPs fills in what kube-apiserver's allocator records for a
// service with a cluster IP: the IP list, its family and the single-stack
// policy. Services without one get none here (portcullis allocates no IPs).
func prepareServiceIPs(s *corev1.Service) {
	sp := &s.Spec
	if sp.Type == corev1.ServiceTypeExternalName || sp.ClusterIP == "" || sp.ClusterIP == corev1.ClusterIPNone {
		return
	}
	if len(sp.ClusterIPs) == 0 {
		sp.ClusterIPs = []string{sp.ClusterIP}
	}
	if len(sp.IPFamilies) == 0 {
		for _, ip := range sp.ClusterIPs {
			family := corev1.IPv4Protocol
			if strings.Contains(ip, ":") {
				family = corev1.IPv6Protocol
			}
			sp.IPFamilies = append(sp.IPFamilies, family)
		}
	}
	if sp.IPFamilyPolicy == nil {
		policy := corev1.IPFamilyPolicySingleStack
		if len(sp.ClusterIPs) > 1 {
			policy = corev1.IPFamilyPolicyRequireDualStack
		}
		sp.IPFamilyPolicy = &policy
	}
}
