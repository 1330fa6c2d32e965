package quota

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/portcullis/portcullis/internal/admission"
)

func list(pairs ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		l[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return l
}

// render makes lists comparable: amounts as canonical strings.
func render(l corev1.ResourceList) map[string]string {
	out := map[string]string{}
	for n, q := range l {
		out[string(n)] = q.String()
	}
	return out
}

func ctr(name string, requests, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
}

func pod(cs ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: corev1.PodSpec{Containers: cs}}
}

var gates = PodOptions{PodLevelResources: true, PodLevelResourcesFixKubeletQOSClass: true}

func TestPodUsage(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	always := corev1.ContainerRestartPolicyAlways
	grace := int64(30)
	tests := []struct {
		name string
		pod  *corev1.Pod
		opts PodOptions
		want map[string]string
	}{{
		name: "best effort",
		pod:  pod(ctr("a", nil, nil)),
		want: map[string]string{"count/pods": "1", "pods": "1"},
	}, {
		name: "requests and limits summed",
		pod:  pod(ctr("a", list("cpu", "100m", "memory", "1Gi"), list("cpu", "1")), ctr("b", list("cpu", "200m", "ephemeral-storage", "1Gi"), list("memory", "2Gi", "ephemeral-storage", "2Gi"))),
		want: map[string]string{"count/pods": "1", "pods": "1", "cpu": "300m", "requests.cpu": "300m", "limits.cpu": "1",
			"memory": "1Gi", "requests.memory": "1Gi", "limits.memory": "2Gi",
			"ephemeral-storage": "1Gi", "requests.ephemeral-storage": "1Gi", "limits.ephemeral-storage": "2Gi"},
	}, {
		name: "init container max, sidecar added",
		pod: func() *corev1.Pod {
			p := pod(ctr("a", list("cpu", "1"), nil))
			side := ctr("s", list("cpu", "500m"), nil)
			side.RestartPolicy = &always
			p.Spec.InitContainers = []corev1.Container{ctr("i", list("cpu", "3"), nil), side}
			return p
		}(),
		want: map[string]string{"count/pods": "1", "pods": "1", "cpu": "3", "requests.cpu": "3"},
	}, {
		name: "hugepages and extended resources",
		pod:  pod(ctr("a", list("hugepages-2Mi", "4Mi", "example.com/gpu", "2"), list("hugepages-2Mi", "4Mi", "example.com/gpu", "2"))),
		want: map[string]string{"count/pods": "1", "pods": "1", "hugepages-2Mi": "4Mi", "requests.hugepages-2Mi": "4Mi", "requests.example.com/gpu": "2"},
	}, {
		name: "pod-level resources win",
		pod: func() *corev1.Pod {
			p := pod(ctr("a", list("cpu", "100m"), nil))
			p.Spec.Resources = &corev1.ResourceRequirements{Requests: list("cpu", "2")}
			return p
		}(),
		opts: gates,
		want: map[string]string{"count/pods": "1", "pods": "1", "cpu": "2", "requests.cpu": "2"},
	}, {
		name: "pod-level resources off",
		pod: func() *corev1.Pod {
			p := pod(ctr("a", list("cpu", "100m"), nil))
			p.Spec.Resources = &corev1.ResourceRequirements{Requests: list("cpu", "2")}
			return p
		}(),
		want: map[string]string{"count/pods": "1", "pods": "1", "cpu": "100m", "requests.cpu": "100m"},
	}, {
		name: "overhead counts",
		pod: func() *corev1.Pod {
			p := pod(ctr("a", list("cpu", "100m"), nil))
			p.Spec.Overhead = list("cpu", "50m")
			return p
		}(),
		want: map[string]string{"count/pods": "1", "pods": "1", "cpu": "150m", "requests.cpu": "150m"},
	}, {
		name: "finished pod is only counted",
		pod: func() *corev1.Pod {
			p := pod(ctr("a", list("cpu", "1"), nil))
			p.Status.Phase = corev1.PodSucceeded
			return p
		}(),
		want: map[string]string{"count/pods": "1"},
	}, {
		name: "pod past its grace period is only counted",
		pod: func() *corev1.Pod {
			p := pod(ctr("a", list("cpu", "1"), nil))
			p.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Minute)}
			p.DeletionGracePeriodSeconds = &grace
			return p
		}(),
		want: map[string]string{"count/pods": "1"},
	}, {
		name: "pod within its grace period counts",
		pod: func() *corev1.Pod {
			p := pod(ctr("a", list("cpu", "1"), nil))
			p.DeletionTimestamp = &metav1.Time{Time: now.Add(-10 * time.Second)}
			p.DeletionGracePeriodSeconds = &grace
			return p
		}(),
		want: map[string]string{"count/pods": "1", "pods": "1", "cpu": "1", "requests.cpu": "1"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opts.Now = func() time.Time { return now }
			got, err := NewPods(tt.opts).Usage(tt.pod)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, render(got)); d != "" {
				t.Errorf("usage (-want +got):\n%s", d)
			}
		})
	}
}

func TestPodScopes(t *testing.T) {
	deadline := int64(10)
	besteffort := pod(ctr("a", nil, nil))
	burstable := pod(ctr("a", list("cpu", "1"), nil))
	terminating := pod(ctr("a", nil, nil))
	terminating.Spec.ActiveDeadlineSeconds = &deadline
	high := pod(ctr("a", nil, nil))
	high.Spec.PriorityClassName = "high"
	cross := pod(ctr("a", nil, nil))
	cross.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: corev1.PodAffinityTerm{Namespaces: []string{"other"}}}}}}
	sameNS := pod(ctr("a", nil, nil))
	sameNS.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: "zone"}}}}
	podLevel := pod(ctr("a", nil, nil))
	podLevel.Spec.Resources = &corev1.ResourceRequirements{Requests: list("memory", "1Gi")}
	podLevelStorageOnly := pod(ctr("a", list("cpu", "1"), nil))
	podLevelStorageOnly.Spec.Resources = &corev1.ResourceRequirements{Requests: list("ephemeral-storage", "1Gi")}
	exists := func(s corev1.ResourceQuotaScope) corev1.ScopedResourceSelectorRequirement {
		return corev1.ScopedResourceSelectorRequirement{ScopeName: s, Operator: corev1.ScopeSelectorOpExists}
	}
	in := func(op corev1.ScopeSelectorOperator, v ...string) corev1.ScopedResourceSelectorRequirement {
		return corev1.ScopedResourceSelectorRequirement{ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: op, Values: v}
	}
	tests := []struct {
		name string
		sel  corev1.ScopedResourceSelectorRequirement
		pod  *corev1.Pod
		want bool
	}{
		{name: "Terminating, deadline", sel: exists(corev1.ResourceQuotaScopeTerminating), pod: terminating, want: true},
		{name: "Terminating, none", sel: exists(corev1.ResourceQuotaScopeTerminating), pod: besteffort},
		{name: "NotTerminating, none", sel: exists(corev1.ResourceQuotaScopeNotTerminating), pod: besteffort, want: true},
		{name: "NotTerminating, deadline", sel: exists(corev1.ResourceQuotaScopeNotTerminating), pod: terminating},
		{name: "BestEffort, best effort", sel: exists(corev1.ResourceQuotaScopeBestEffort), pod: besteffort, want: true},
		{name: "BestEffort, burstable", sel: exists(corev1.ResourceQuotaScopeBestEffort), pod: burstable},
		{name: "NotBestEffort, burstable", sel: exists(corev1.ResourceQuotaScopeNotBestEffort), pod: burstable, want: true},
		{name: "NotBestEffort, pod-level memory", sel: exists(corev1.ResourceQuotaScopeNotBestEffort), pod: podLevel, want: true},
		{name: "BestEffort, pod-level storage only uses containers", sel: exists(corev1.ResourceQuotaScopeBestEffort), pod: podLevelStorageOnly},
		{name: "PriorityClass Exists", sel: exists(corev1.ResourceQuotaScopePriorityClass), pod: high, want: true},
		{name: "PriorityClass Exists, none", sel: exists(corev1.ResourceQuotaScopePriorityClass), pod: besteffort},
		{name: "PriorityClass In", sel: in(corev1.ScopeSelectorOpIn, "high", "low"), pod: high, want: true},
		{name: "PriorityClass In, other", sel: in(corev1.ScopeSelectorOpIn, "low"), pod: high},
		{name: "PriorityClass NotIn, none", sel: in(corev1.ScopeSelectorOpNotIn, "low"), pod: besteffort, want: true},
		{name: "PriorityClass DoesNotExist", sel: in(corev1.ScopeSelectorOpDoesNotExist), pod: besteffort, want: true},
		{name: "CrossNamespacePodAffinity", sel: exists(corev1.ResourceQuotaScopeCrossNamespacePodAffinity), pod: cross, want: true},
		{name: "CrossNamespacePodAffinity, same namespace", sel: exists(corev1.ResourceQuotaScopeCrossNamespacePodAffinity), pod: sameNS},
		{name: "VolumeAttributesClass never a pod's", sel: exists(corev1.ResourceQuotaScopeVolumeAttributesClass), pod: besteffort},
	}
	e := NewPods(gates)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.MatchingScopes(tt.pod, []corev1.ScopedResourceSelectorRequirement{tt.sel})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, len(got) == 1); d != "" {
				t.Errorf("in scope (-want +got):\n%s", d)
			}
		})
	}
}

func TestPodConstraints(t *testing.T) {
	tests := []struct {
		name     string
		required []corev1.ResourceName
		pod      *corev1.Pod
		want     string
	}{{
		name:     "all set",
		required: []corev1.ResourceName{"requests.cpu", "limits.memory", "pods"},
		pod:      pod(ctr("a", list("cpu", "1"), list("memory", "1Gi"))),
	}, {
		name:     "missing, sorted by resource then container",
		required: []corev1.ResourceName{"requests.memory", "limits.cpu", "requests.storage"},
		pod: func() *corev1.Pod {
			p := pod(ctr("b", nil, nil), ctr("a", list("memory", "1"), nil))
			p.Spec.InitContainers = []corev1.Container{ctr("i", nil, list("cpu", "1"))}
			return p
		}(),
		want: "must specify limits.cpu for: a,b; requests.memory for: b,i",
	}, {
		name:     "pod-level resources need no container values",
		required: []corev1.ResourceName{"requests.cpu"},
		pod: func() *corev1.Pod {
			p := pod(ctr("a", nil, nil))
			p.Spec.Resources = &corev1.ResourceRequirements{Requests: list("cpu", "1")}
			return p
		}(),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := NewPods(gates).Constraints(tt.required, tt.pod)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
		})
	}
}

func TestMatchingResources(t *testing.T) {
	all := []corev1.ResourceName{"pods", "count/pods", "requests.cpu", "cpu", "limits.memory", "hugepages-1Gi", "requests.hugepages-1Gi",
		"requests.example.com/gpu", "requests.kubernetes.io/foo", "requests.deviceclass.resource.kubernetes.io/gpu", "example.com/gpu",
		"services", "services.nodeports", "services.loadbalancers", "count/services",
		"persistentvolumeclaims", "requests.storage", "count/persistentvolumeclaims", "gold.storageclass.storage.k8s.io/requests.storage",
		"gold.storageclass.storage.k8s.io/persistentvolumeclaims", "configmaps", "count/configmaps", "count/widgets.example.com"}
	r := NewRegistry(gates)
	tests := []struct {
		gr   schema.GroupResource
		want []corev1.ResourceName
	}{
		{gr: schema.GroupResource{Resource: "pods"}, want: []corev1.ResourceName{"count/pods", "cpu", "limits.memory", "pods", "requests.cpu",
			"hugepages-1Gi", "requests.hugepages-1Gi", "requests.example.com/gpu", "requests.deviceclass.resource.kubernetes.io/gpu"}},
		{gr: schema.GroupResource{Resource: "services"}, want: []corev1.ResourceName{"count/services", "services", "services.loadbalancers", "services.nodeports"}},
		{gr: schema.GroupResource{Resource: "persistentvolumeclaims"}, want: []corev1.ResourceName{"persistentvolumeclaims", "requests.storage", "count/persistentvolumeclaims",
			"gold.storageclass.storage.k8s.io/requests.storage", "gold.storageclass.storage.k8s.io/persistentvolumeclaims"}},
		{gr: schema.GroupResource{Resource: "configmaps"}, want: []corev1.ResourceName{"configmaps", "count/configmaps"}},
		{gr: schema.GroupResource{Group: "example.com", Resource: "widgets"}, want: []corev1.ResourceName{"count/widgets.example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.gr.String(), func(t *testing.T) {
			if d := cmp.Diff(tt.want, r.Get(tt.gr).MatchingResources(all)); d != "" {
				t.Errorf("matching (-want +got):\n%s", d)
			}
		})
	}
}

func TestServiceUsage(t *testing.T) {
	no := false
	ports := []corev1.ServicePort{{Port: 80, NodePort: 30080}, {Port: 443}}
	tests := []struct {
		name string
		spec corev1.ServiceSpec
		want map[string]string
	}{
		{name: "cluster IP", spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: ports},
			want: map[string]string{"count/services": "1", "services": "1", "services.nodeports": "0", "services.loadbalancers": "0"}},
		{name: "node port", spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: ports},
			want: map[string]string{"count/services": "1", "services": "1", "services.nodeports": "2", "services.loadbalancers": "0"}},
		{name: "load balancer", spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: ports},
			want: map[string]string{"count/services": "1", "services": "1", "services.nodeports": "2", "services.loadbalancers": "1"}},
		{name: "load balancer without node ports", spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: ports, AllocateLoadBalancerNodePorts: &no},
			want: map[string]string{"count/services": "1", "services": "1", "services.nodeports": "1", "services.loadbalancers": "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NewServices().Usage(&corev1.Service{Spec: tt.spec})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, render(got)); d != "" {
				t.Errorf("usage (-want +got):\n%s", d)
			}
		})
	}
}

func TestClaimUsageAndScope(t *testing.T) {
	gold, fast := "gold", "fast"
	claim := func(mod func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
		c := &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: list("storage", "1500m")}}}
		if mod != nil {
			mod(c)
		}
		return c
	}
	tests := []struct {
		name    string
		pvc     *corev1.PersistentVolumeClaim
		want    map[string]string
		inScope bool
	}{{
		name: "no class, rounded up",
		pvc:  claim(nil),
		want: map[string]string{"persistentvolumeclaims": "1", "count/persistentvolumeclaims": "1", "requests.storage": "2"},
	}, {
		name: "class from spec",
		pvc: claim(func(c *corev1.PersistentVolumeClaim) {
			c.Spec.StorageClassName = &gold
			c.Spec.Resources.Requests = list("storage", "1Gi")
		}),
		want: map[string]string{"persistentvolumeclaims": "1", "count/persistentvolumeclaims": "1", "requests.storage": "1Gi",
			"gold.storageclass.storage.k8s.io/persistentvolumeclaims": "1", "gold.storageclass.storage.k8s.io/requests.storage": "1Gi"},
	}, {
		name: "beta annotation wins, allocated storage when larger",
		pvc: claim(func(c *corev1.PersistentVolumeClaim) {
			c.Annotations = map[string]string{corev1.BetaStorageClassAnnotation: "fast"}
			c.Spec.StorageClassName = &gold
			c.Spec.Resources.Requests = list("storage", "1Gi")
			c.Status.AllocatedResources = list("storage", "2Gi")
		}),
		want: map[string]string{"persistentvolumeclaims": "1", "count/persistentvolumeclaims": "1", "requests.storage": "2Gi",
			"fast.storageclass.storage.k8s.io/persistentvolumeclaims": "1", "fast.storageclass.storage.k8s.io/requests.storage": "2Gi"},
	}, {
		name: "volume attributes class in status",
		pvc: claim(func(c *corev1.PersistentVolumeClaim) {
			c.Status.CurrentVolumeAttributesClassName = &fast
			c.Spec.Resources.Requests = nil
		}),
		want:    map[string]string{"persistentvolumeclaims": "1", "count/persistentvolumeclaims": "1"},
		inScope: true,
	}}
	sel := []corev1.ScopedResourceSelectorRequirement{{ScopeName: corev1.ResourceQuotaScopeVolumeAttributesClass, Operator: corev1.ScopeSelectorOpIn, Values: []string{"fast"}}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := NewPersistentVolumeClaims()
			got, err := e.Usage(tt.pvc)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, render(got)); d != "" {
				t.Errorf("usage (-want +got):\n%s", d)
			}
			m, err := e.MatchingScopes(tt.pvc, sel)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.inScope, len(m) == 1); d != "" {
				t.Errorf("in scope (-want +got):\n%s", d)
			}
		})
	}
}

func TestHandles(t *testing.T) {
	deadline := int64(1)
	running, terminating := pod(), pod()
	terminating.Spec.ActiveDeadlineSeconds = &deadline
	r := NewRegistry(gates)
	tests := []struct {
		name     string
		resource string
		op       admission.Operation
		sub      string
		obj, old runtime.Object
		want     bool
	}{
		{name: "pod create", resource: "pods", op: admission.Create, obj: running, want: true},
		{name: "pod update", resource: "pods", op: admission.Update, obj: running, old: running},
		{name: "pod update into Terminating", resource: "pods", op: admission.Update, obj: terminating, old: running, want: true},
		{name: "pod resize", resource: "pods", op: admission.Update, sub: "resize", obj: running, old: running, want: true},
		{name: "pod status", resource: "pods", op: admission.Update, sub: "status", obj: running, old: running},
		{name: "service update", resource: "services", op: admission.Update, obj: &corev1.Service{}, old: &corev1.Service{}, want: true},
		{name: "service status", resource: "services", op: admission.Update, sub: "status", obj: &corev1.Service{}, old: &corev1.Service{}},
		{name: "claim status", resource: "persistentvolumeclaims", op: admission.Update, sub: "status",
			obj: &corev1.PersistentVolumeClaim{}, old: &corev1.PersistentVolumeClaim{}, want: true},
		{name: "configmap create", resource: "configmaps", op: admission.Create, obj: &corev1.ConfigMap{}, want: true},
		{name: "configmap update", resource: "configmaps", op: admission.Update, obj: &corev1.ConfigMap{}, old: &corev1.ConfigMap{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &admission.Attributes{Resource: schema.GroupVersionResource{Version: "v1", Resource: tt.resource}, Operation: tt.op, Subresource: tt.sub, Object: tt.obj, OldObject: tt.old}
			if d := cmp.Diff(tt.want, r.Get(a.Resource.GroupResource()).Handles(a)); d != "" {
				t.Errorf("handles (-want +got):\n%s", d)
			}
		})
	}
}

func TestArithmetic(t *testing.T) {
	a, b := list("cpu", "1", "memory", "1Gi"), list("cpu", "1500m", "pods", "2")
	ok, over := LessThanOrEqual(b, a)
	got := map[string]any{
		"add":      render(Add(a, b)),
		"subtract": render(SubtractWithNonNegativeResult(a, b)),
		"mask":     render(Mask(a, []corev1.ResourceName{"memory"})),
		"lte":      []any{ok, over},
		"pretty":   PrettyPrint(b),
		"zeros":    render(RemoveZeros(list("cpu", "0", "pods", "1"))),
		"negative": IsNegative(list("cpu", "-1", "pods", "1")),
	}
	want := map[string]any{
		"add":      map[string]string{"cpu": "2500m", "memory": "1Gi", "pods": "2"},
		"subtract": map[string]string{"cpu": "0", "memory": "1Gi", "pods": "0"},
		"mask":     map[string]string{"memory": "1Gi"},
		"lte":      []any{false, []corev1.ResourceName{"cpu"}},
		"pretty":   "cpu=1500m,pods=2",
		"zeros":    map[string]string{"pods": "1"},
		"negative": []corev1.ResourceName{"cpu"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
