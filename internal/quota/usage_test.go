package quota

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	podsGR     = schema.GroupResource{Resource: "pods"}
	servicesGR = schema.GroupResource{Resource: "services"}
	claimsGR   = schema.GroupResource{Resource: "persistentvolumeclaims"}
	mapsGR     = schema.GroupResource{Resource: "configmaps"}
	secretsGR  = schema.GroupResource{Resource: "secrets"}
	deployGR   = schema.GroupResource{Group: "apps", Resource: "deployments"}
)

// stored is a namespace's content for CalculateUsage.
type stored map[schema.GroupResource][]runtime.Object

func (s stored) list(_ context.Context, gr schema.GroupResource, ns string) ([]runtime.Object, error) {
	if ns != "ns" {
		return nil, errors.New("listed another namespace: " + ns)
	}
	return s[gr], nil
}

func TestCalculateUsage(t *testing.T) {
	deadline := int64(30)
	withPod := func(p *corev1.Pod, mod func(*corev1.Pod)) *corev1.Pod { mod(p); return p }
	burstable := pod(ctr("a", list("cpu", "100m", "memory", "1Gi"), list("cpu", "1", "memory", "2Gi")))
	guaranteed := pod(ctr("a", list("cpu", "1", "memory", "1Gi"), list("cpu", "1", "memory", "1Gi")))
	besteffort := pod(ctr("a", nil, nil))
	terminating := withPod(pod(ctr("a", list("cpu", "250m"), nil)), func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = &deadline })
	finished := withPod(pod(ctr("a", list("cpu", "4"), nil)), func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded })
	failed := withPod(pod(ctr("a", list("cpu", "4"), nil)), func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed })
	high := withPod(pod(ctr("a", list("cpu", "2"), nil)), func(p *corev1.Pod) { p.Spec.PriorityClassName = "high" })
	low := withPod(pod(ctr("a", list("cpu", "3"), nil)), func(p *corev1.Pod) { p.Spec.PriorityClassName = "low" })
	gpu := pod(ctr("a", list("example.com/gpu", "2", "hugepages-2Mi", "4Mi"), list("example.com/gpu", "2", "hugepages-2Mi", "4Mi")))

	service := func(typ corev1.ServiceType, ports int) *corev1.Service {
		s := &corev1.Service{Spec: corev1.ServiceSpec{Type: typ}}
		for i := range ports {
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Port: int32(80 + i)})
		}
		return s
	}
	gold, silver := "gold", "silver"
	claim := func(class *string, size string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: class,
			Resources: corev1.VolumeResourceRequirements{Requests: list("storage", size)}}}
	}
	vacClaim := claim(&gold, "1Gi")
	fastVAC := "fast"
	vacClaim.Spec.VolumeAttributesClassName = &fastVAC

	content := stored{
		podsGR:     {burstable, guaranteed, besteffort, terminating, finished, failed, high, low, gpu},
		servicesGR: {service(corev1.ServiceTypeClusterIP, 1), service(corev1.ServiceTypeNodePort, 2), service(corev1.ServiceTypeLoadBalancer, 3), service(corev1.ServiceTypeExternalName, 0)},
		claimsGR:   {claim(&gold, "10Gi"), claim(&gold, "5Gi"), claim(&silver, "1Gi"), claim(nil, "2Gi"), vacClaim},
		mapsGR:     {&corev1.ConfigMap{}, &corev1.ConfigMap{}},
		secretsGR:  {&corev1.Secret{}, &corev1.Secret{}, &corev1.Secret{}},
		deployGR:   {&metav1.PartialObjectMetadata{}},
	}
	reg := NewRegistry(gates)
	var evaluators []*Evaluator
	for _, gr := range []schema.GroupResource{podsGR, servicesGR, claimsGR, mapsGR, secretsGR, deployGR} {
		evaluators = append(evaluators, reg.Get(gr))
	}

	sel := func(op corev1.ScopeSelectorOperator, values ...string) *corev1.ScopeSelector {
		return &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{{
			ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: op, Values: values}}}
	}
	tests := []struct {
		name     string
		hard     corev1.ResourceList
		scopes   []corev1.ResourceQuotaScope
		selector *corev1.ScopeSelector
		want     map[string]string
	}{{
		name: "pods: requests and limits of the pods still running",
		hard: list("pods", "100", "count/pods", "100", "requests.cpu", "100", "cpu", "100", "limits.cpu", "100",
			"requests.memory", "100Gi", "limits.memory", "100Gi", "memory", "100Gi"),
		// 100m+1+250m+2+3 cpu; finished and failed pods are counted as objects only.
		want: map[string]string{"pods": "7", "count/pods": "9", "requests.cpu": "6350m", "cpu": "6350m", "limits.cpu": "2",
			"requests.memory": "2Gi", "limits.memory": "3Gi", "memory": "2Gi"},
	}, {
		name: "pods: extended resources and hugepages",
		hard: list("requests.example.com/gpu", "8", "hugepages-2Mi", "1Gi", "requests.hugepages-2Mi", "1Gi"),
		want: map[string]string{"requests.example.com/gpu": "2", "hugepages-2Mi": "4Mi", "requests.hugepages-2Mi": "4Mi"},
	}, {
		name:   "pods: Terminating",
		hard:   list("pods", "10", "requests.cpu", "10"),
		scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeTerminating},
		want:   map[string]string{"pods": "1", "requests.cpu": "250m"},
	}, {
		name:   "pods: NotTerminating",
		hard:   list("pods", "10", "requests.cpu", "10"),
		scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeNotTerminating},
		want:   map[string]string{"pods": "6", "requests.cpu": "6100m"},
	}, {
		// Only cpu and memory decide the QoS class: extended resources leave a pod best effort.
		name:   "pods: BestEffort",
		hard:   list("pods", "10", "count/pods", "10"),
		scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort},
		want:   map[string]string{"pods": "2", "count/pods": "2"},
	}, {
		name:   "pods: NotBestEffort and NotTerminating together",
		hard:   list("pods", "10", "requests.memory", "10Gi"),
		scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeNotBestEffort, corev1.ResourceQuotaScopeNotTerminating},
		want:   map[string]string{"pods": "4", "requests.memory": "2Gi"},
	}, {
		name:     "pods: priority class In",
		hard:     list("pods", "10", "requests.cpu", "10"),
		selector: sel(corev1.ScopeSelectorOpIn, "high"),
		want:     map[string]string{"pods": "1", "requests.cpu": "2"},
	}, {
		name:     "pods: priority class NotIn counts pods without one",
		hard:     list("requests.cpu", "10"),
		selector: sel(corev1.ScopeSelectorOpNotIn, "high"),
		want:     map[string]string{"requests.cpu": "4350m"},
	}, {
		name:     "pods: priority class Exists",
		hard:     list("pods", "10"),
		selector: sel(corev1.ScopeSelectorOpExists),
		want:     map[string]string{"pods": "2"},
	}, {
		name:     "a malformed selector counts nothing, without an error",
		hard:     list("pods", "10"),
		selector: sel(corev1.ScopeSelectorOpIn),
		want:     map[string]string{"pods": "0"},
	}, {
		name: "services by type",
		hard: list("services", "10", "count/services", "10", "services.nodeports", "10", "services.loadbalancers", "10"),
		want: map[string]string{"services": "4", "count/services": "4", "services.nodeports": "5", "services.loadbalancers": "1"},
	}, {
		name:   "services are in no scope",
		hard:   list("services", "10"),
		scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeNotTerminating},
		want:   map[string]string{"services": "0"},
	}, {
		name: "claims by storage class",
		hard: list("persistentvolumeclaims", "10", "requests.storage", "100Gi",
			"gold.storageclass.storage.k8s.io/requests.storage", "100Gi", "gold.storageclass.storage.k8s.io/persistentvolumeclaims", "10",
			"bronze.storageclass.storage.k8s.io/requests.storage", "100Gi"),
		want: map[string]string{"persistentvolumeclaims": "5", "requests.storage": "19Gi",
			"gold.storageclass.storage.k8s.io/requests.storage": "16Gi", "gold.storageclass.storage.k8s.io/persistentvolumeclaims": "3",
			"bronze.storageclass.storage.k8s.io/requests.storage": "0"},
	}, {
		name: "claims in the VolumeAttributesClass scope",
		hard: list("persistentvolumeclaims", "10", "requests.storage", "100Gi"),
		selector: &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{{
			ScopeName: corev1.ResourceQuotaScopeVolumeAttributesClass, Operator: corev1.ScopeSelectorOpIn, Values: []string{"fast"}}}},
		want: map[string]string{"persistentvolumeclaims": "1", "requests.storage": "1Gi"},
	}, {
		name: "object counts and legacy names",
		hard: list("configmaps", "10", "count/configmaps", "10", "secrets", "10", "count/secrets", "10", "count/deployments.apps", "10"),
		want: map[string]string{"configmaps": "2", "count/configmaps": "2", "secrets": "3", "count/secrets": "3", "count/deployments.apps": "1"},
	}, {
		name:   "object counts are in no scope",
		hard:   list("configmaps", "10", "count/deployments.apps", "10"),
		scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort},
		want:   map[string]string{"configmaps": "0", "count/deployments.apps": "0"},
	}, {
		name: "names nothing charges are left out",
		hard: list("count/widgets.example.com", "1", "foo", "1", "pods", "10"),
		want: map[string]string{"pods": "7"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q"},
				Spec: corev1.ResourceQuotaSpec{Hard: tt.hard, Scopes: tt.scopes, ScopeSelector: tt.selector}}
			got, err := CalculateUsage(context.Background(), q, evaluators, content.list)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, render(got)); d != "" {
				t.Errorf("usage (-want +got):\n%s", d)
			}
		})
	}
}

func TestCalculateUsageListError(t *testing.T) {
	reg := NewRegistry(gates)
	evaluators := []*Evaluator{reg.Get(podsGR), reg.Get(mapsGR)}
	lister := func(_ context.Context, gr schema.GroupResource, _ string) ([]runtime.Object, error) {
		if gr == podsGR {
			return nil, errors.New("boom")
		}
		return []runtime.Object{&corev1.ConfigMap{}}, nil
	}
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Namespace: "ns"}, Spec: corev1.ResourceQuotaSpec{Hard: list("pods", "1", "configmaps", "1")}}
	got, err := CalculateUsage(context.Background(), q, evaluators, lister)
	if err == nil || err.Error() != "failed to list content: boom" {
		t.Errorf("error %v, want failed to list content: boom", err)
	}
	// The names of the evaluator that failed are left out; the others are computed.
	if d := cmp.Diff(map[string]string{"configmaps": "1"}, render(got)); d != "" {
		t.Errorf("usage (-want +got):\n%s", d)
	}
}

func TestRequiresReplenish(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	deadline, grace := int64(30), int64(10)
	running := pod(ctr("a", list("cpu", "1"), nil))
	with := func(mod func(*corev1.Pod)) *corev1.Pod { p := running.DeepCopy(); mod(p); return p }
	statusResources := func(cpu string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "a", Resources: &corev1.ResourceRequirements{Requests: list("cpu", cpu)}}}
		}
	}
	deleting := func(at time.Time) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			ts := metav1.NewTime(at)
			p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &ts, &grace
		}
	}
	svc := func(typ corev1.ServiceType) *corev1.Service {
		return &corev1.Service{Spec: corev1.ServiceSpec{Type: typ}}
	}
	tests := []struct {
		name     string
		gr       schema.GroupResource
		old, cur runtime.Object
		want     bool
	}{
		{name: "pod unchanged", gr: podsGR, old: running, cur: running.DeepCopy()},
		{name: "pod succeeded", gr: podsGR, old: running, cur: with(func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }), want: true},
		{name: "pod failed", gr: podsGR, old: running, cur: with(func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }), want: true},
		{name: "finished pod updated", gr: podsGR, old: with(func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }), cur: with(func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed })},
		{name: "pod past its grace period", gr: podsGR, old: running, cur: with(deleting(now.Add(-time.Minute))), want: true},
		{name: "pod within its grace period", gr: podsGR, old: running, cur: with(deleting(now))},
		{name: "pod leaving the Terminating scope", gr: podsGR, old: with(func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = &deadline }), cur: running, want: true},
		{name: "pod resized", gr: podsGR, old: with(statusResources("1")), cur: with(statusResources("500m")), want: true},
		{name: "pod status resources equal", gr: podsGR, old: with(statusResources("1")), cur: with(statusResources("1000m"))},
		{name: "service to NodePort", gr: servicesGR, old: svc(corev1.ServiceTypeClusterIP), cur: svc(corev1.ServiceTypeNodePort), want: true},
		{name: "service ClusterIP to ExternalName", gr: servicesGR, old: svc(corev1.ServiceTypeClusterIP), cur: svc(corev1.ServiceTypeExternalName)},
		{name: "any claim update", gr: claimsGR, old: &corev1.PersistentVolumeClaim{}, cur: &corev1.PersistentVolumeClaim{}, want: true},
		{name: "configmap update", gr: mapsGR, old: &corev1.ConfigMap{}, cur: &corev1.ConfigMap{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RequiresReplenish(tt.gr, tt.old, tt.cur, now); got != tt.want {
				t.Errorf("RequiresReplenish = %v, want %v", got, tt.want)
			}
		})
	}
}
