package resourcequota

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/admission"
	"github.com/portcullis/portcullis/internal/quota"
)

var gates = Options{Pods: quota.PodOptions{PodLevelResources: true, PodLevelResourcesFixKubeletQOSClass: true}}

func TestValidate(t *testing.T) {
	deadline := int64(30)
	gold := "gold"
	terminating := podOf("t", list("cpu", "1"), list("cpu", "1"))
	terminating.Spec.ActiveDeadlineSeconds = &deadline
	scoped := func(q *corev1.ResourceQuota, scopes ...corev1.ResourceQuotaScope) *corev1.ResourceQuota {
		q.Spec.Scopes = scopes
		return q
	}
	withSelector := func(q *corev1.ResourceQuota, exprs ...corev1.ScopedResourceSelectorRequirement) *corev1.ResourceQuota {
		q.Spec.ScopeSelector = &corev1.ScopeSelector{MatchExpressions: exprs}
		return q
	}
	highPod := podOf("h", list("cpu", "1"), nil)
	highPod.Spec.PriorityClassName = "high"
	stored := func(o metav1.Object) { o.SetResourceVersion("7") }
	oldPVC := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &gold, Resources: corev1.VolumeResourceRequirements{Requests: list("storage", "1Gi")}}}
	stored(oldPVC)
	bigPVC := oldPVC.DeepCopy()
	bigPVC.Spec.Resources.Requests = list("storage", "3Gi")

	tests := []struct {
		name   string
		config string
		quotas []*corev1.ResourceQuota
		a      *admission.Attributes
		want   string
		// code is the error's HTTP code, 403 unless set.
		code int32
		// used is each quota's status.used afterwards.
		used map[string]map[string]string
	}{{
		name:   "no quota",
		a:      attrs(admission.Create, "pods", "", podOf("p", nil, nil), nil),
		quotas: nil,
	}, {
		name:   "pod charged",
		quotas: []*corev1.ResourceQuota{newQuota("q", list("pods", "2", "requests.cpu", "2"), list("pods", "1", "requests.cpu", "500m"))},
		a:      attrs(admission.Create, "pods", "", podOf("p", list("cpu", "1"), nil), nil),
		used:   map[string]map[string]string{"q": {"pods": "2", "requests.cpu": "1500m"}},
	}, {
		name:   "exceeded",
		quotas: []*corev1.ResourceQuota{newQuota("q", list("pods", "2", "requests.cpu", "1", "requests.memory", "1Gi"), list("pods", "0", "requests.cpu", "500m", "requests.memory", "0"))},
		a:      attrs(admission.Create, "pods", "", podOf("p", list("cpu", "1", "memory", "2Gi"), nil), nil),
		want:   `pods "p" is forbidden: exceeded quota: q, requested: requests.cpu=1,requests.memory=2Gi, used: requests.cpu=500m,requests.memory=0, limited: requests.cpu=1,requests.memory=1Gi`,
		used:   map[string]map[string]string{"q": {"pods": "0", "requests.cpu": "500m", "requests.memory": "0"}},
	}, {
		name:   "must specify",
		quotas: []*corev1.ResourceQuota{newQuota("compute", list("limits.cpu", "2", "requests.memory", "1Gi"), list("limits.cpu", "0", "requests.memory", "0"))},
		a:      attrs(admission.Create, "pods", "", podOf("p", list("cpu", "1"), nil), nil),
		want:   `pods "p" is forbidden: failed quota: compute: must specify limits.cpu for: c; requests.memory for: c`,
		used:   map[string]map[string]string{"compute": {"limits.cpu": "0", "requests.memory": "0"}},
	}, {
		name:   "status unknown",
		quotas: []*corev1.ResourceQuota{newQuota("q", list("pods", "2", "count/pods", "2"), list("pods", "0"))},
		a:      attrs(admission.Create, "pods", "", podOf("p", nil, nil), nil),
		want:   `pods "p" is forbidden: status unknown for quota: q, resources: count/pods,pods`,
		used:   map[string]map[string]string{"q": {"pods": "0"}},
	}, {
		name: "scopes pick the quota",
		quotas: []*corev1.ResourceQuota{
			scoped(newQuota("term", list("pods", "1"), list("pods", "0")), corev1.ResourceQuotaScopeTerminating),
			scoped(newQuota("longrunning", list("pods", "1"), list("pods", "1")), corev1.ResourceQuotaScopeNotTerminating),
			scoped(newQuota("besteffort", list("pods", "1"), list("pods", "1")), corev1.ResourceQuotaScopeBestEffort),
		},
		a: attrs(admission.Create, "pods", "", terminating, nil),
		used: map[string]map[string]string{
			"term": {"pods": "1"}, "longrunning": {"pods": "1"}, "besteffort": {"pods": "1"}},
	}, {
		name: "priority class selector",
		quotas: []*corev1.ResourceQuota{
			withSelector(newQuota("high", list("pods", "1"), list("pods", "1")), corev1.ScopedResourceSelectorRequirement{
				ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: corev1.ScopeSelectorOpIn, Values: []string{"high"}}),
			withSelector(newQuota("low", list("pods", "1"), list("pods", "0")), corev1.ScopedResourceSelectorRequirement{
				ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: corev1.ScopeSelectorOpIn, Values: []string{"low"}}),
		},
		a:    attrs(admission.Create, "pods", "", highPod, nil),
		want: `pods "h" is forbidden: exceeded quota: high, requested: pods=1, used: pods=1, limited: pods=1`,
		used: map[string]map[string]string{"high": {"pods": "1"}, "low": {"pods": "0"}},
	}, {
		name:   "object count of a custom resource",
		quotas: []*corev1.ResourceQuota{newQuota("q", list("count/configmaps", "1", "configmaps", "5"), list("count/configmaps", "0", "configmaps", "0"))},
		a:      attrs(admission.Create, "configmaps", "", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns"}}, nil),
		used:   map[string]map[string]string{"q": {"count/configmaps": "1", "configmaps": "1"}},
	}, {
		name:   "dry run is checked, not charged",
		quotas: []*corev1.ResourceQuota{newQuota("q", list("pods", "2"), list("pods", "1"))},
		a: func() *admission.Attributes {
			a := attrs(admission.Create, "pods", "", podOf("p", nil, nil), nil)
			a.DryRun = true
			return a
		}(),
		used: map[string]map[string]string{"q": {"pods": "1"}},
	}, {
		name:   "claim update charges the growth",
		quotas: []*corev1.ResourceQuota{newQuota("q", list("requests.storage", "10Gi", "gold.storageclass.storage.k8s.io/requests.storage", "2Gi"), list("requests.storage", "1Gi", "gold.storageclass.storage.k8s.io/requests.storage", "1Gi"))},
		a:      attrs(admission.Update, "persistentvolumeclaims", "", bigPVC, oldPVC),
		want:   `persistentvolumeclaims "c" is forbidden: exceeded quota: q, requested: gold.storageclass.storage.k8s.io/requests.storage=2Gi, used: gold.storageclass.storage.k8s.io/requests.storage=1Gi, limited: gold.storageclass.storage.k8s.io/requests.storage=2Gi`,
		used:   map[string]map[string]string{"q": {"requests.storage": "1Gi", "gold.storageclass.storage.k8s.io/requests.storage": "1Gi"}},
	}, {
		name:   "claim status update is charged but not refused",
		quotas: []*corev1.ResourceQuota{newQuota("q", list("requests.storage", "2Gi"), list("requests.storage", "1Gi"))},
		a:      attrs(admission.Update, "persistentvolumeclaims", "status", bigPVC, oldPVC),
		used:   map[string]map[string]string{"q": {"requests.storage": "3Gi"}},
	}, {
		name:   "resize charges the growth",
		quotas: []*corev1.ResourceQuota{newQuota("q", list("requests.cpu", "4", "pods", "5"), list("requests.cpu", "1", "pods", "1"))},
		a: func() *admission.Attributes {
			old := podOf("r", list("cpu", "1"), nil)
			stored(old)
			grown := podOf("r", list("cpu", "3"), nil)
			stored(grown)
			return attrs(admission.Update, "pods", "resize", grown, old)
		}(),
		used: map[string]map[string]string{"q": {"requests.cpu": "3", "pods": "1"}},
	}, {
		name: "update into Terminating charges the whole pod to the quota it moves into",
		quotas: []*corev1.ResourceQuota{
			scoped(newQuota("term", list("pods", "3", "requests.cpu", "3"), list("pods", "0", "requests.cpu", "0")), corev1.ResourceQuotaScopeTerminating),
			newQuota("all", list("pods", "3", "requests.cpu", "3"), list("pods", "1", "requests.cpu", "1")),
		},
		a: func() *admission.Attributes {
			old := podOf("t", list("cpu", "1"), list("cpu", "1"))
			stored(old)
			now := terminating.DeepCopy()
			stored(now)
			return attrs(admission.Update, "pods", "", now, old)
		}(),
		used: map[string]map[string]string{"term": {"pods": "1", "requests.cpu": "1"}, "all": {"pods": "1", "requests.cpu": "1"}},
	}, {
		name:   "update without old object",
		quotas: []*corev1.ResourceQuota{newQuota("q", list("services", "2"), list("services", "0"))},
		a:      attrs(admission.Update, "services", "", &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s"}}, nil),
		want:   `services "s" is forbidden: unable to get previous usage since prior version of object was not found`,
		used:   map[string]map[string]string{"q": {"services": "0"}},
	}, {
		name:   "service update to node port",
		quotas: []*corev1.ResourceQuota{newQuota("q", list("services", "2", "services.nodeports", "1"), list("services", "1", "services.nodeports", "0"))},
		a: attrs(admission.Update, "services", "",
			&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s", ResourceVersion: "3"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 1}, {Port: 2}}}},
			&corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s", ResourceVersion: "3"}}),
		want: `services "s" is forbidden: exceeded quota: q, requested: services.nodeports=2, used: services.nodeports=0, limited: services.nodeports=1`,
		used: map[string]map[string]string{"q": {"services": "1", "services.nodeports": "0"}},
	}, {
		name:   "limited resource without a covering quota",
		config: "apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResources:\n- resource: pods\n  matchContains: [cpu]\n",
		a:      attrs(admission.Create, "pods", "", podOf("p", list("cpu", "1"), nil), nil),
		want:   `pods "p" is forbidden: insufficient quota to consume: cpu,requests.cpu`,
	}, {
		name:   "limited resource covered",
		config: "apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResources:\n- resource: pods\n  matchContains: [requests.cpu]\n",
		quotas: []*corev1.ResourceQuota{newQuota("q", list("requests.cpu", "2"), list("requests.cpu", "0"))},
		a:      attrs(admission.Create, "pods", "", podOf("p", list("cpu", "1"), nil), nil),
		used:   map[string]map[string]string{"q": {"requests.cpu": "1"}},
	}, {
		name: "limited scope without a covering quota",
		config: `{"apiVersion":"resourcequota.admission.k8s.io/v1beta1","kind":"Configuration","limitedResources":[{"resource":"pods",` +
			`"matchScopes":[{"scopeName":"PriorityClass","operator":"In","values":["high"]}]}]}`,
		a:    attrs(admission.Create, "pods", "", highPod, nil),
		want: `insufficient quota to match these scopes: [{PriorityClass In [high]}]`,
		code: 500,
	}, {
		name:   "pod delete is not looked at",
		quotas: []*corev1.ResourceQuota{newQuota("q", list("pods", "0"), list("pods", "5"))},
		a:      attrs(admission.Delete, "pods", "", nil, podOf("p", nil, nil)),
		used:   map[string]map[string]string{"q": {"pods": "5"}},
	}, {
		name:   "events are ignored",
		quotas: []*corev1.ResourceQuota{newQuota("q", list("count/events", "0"), list("count/events", "0"))},
		a:      attrs(admission.Create, "events", "", &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e"}}, nil),
		used:   map[string]map[string]string{"q": {"count/events": "0"}},
	}}
	for _, tt := range tests {
		if tt.code == 0 {
			tt.code = 403
		}
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(tt.quotas...)
			p, err := New([]byte(tt.config), s, gates)
			if err != nil {
				t.Fatal(err)
			}
			err = p.Validate(context.Background(), tt.a)
			if d := cmp.Diff(tt.want, errText(err)); d != "" {
				t.Errorf("error (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.code, code(err)); err != nil && d != "" {
				t.Errorf("HTTP code (-want +got):\n%s", d)
			}
			used := map[string]map[string]string{}
			for _, q := range tt.quotas {
				used[q.Name] = render(s.get(q.Name).Status.Used)
			}
			if tt.used == nil {
				tt.used = map[string]map[string]string{}
			}
			if d := cmp.Diff(tt.used, used); d != "" {
				t.Errorf("status.used (-want +got):\n%s", d)
			}
		})
	}
}

func TestListError(t *testing.T) {
	quotas := QuotaFuncs{
		ListFunc: func(context.Context, string) ([]*corev1.ResourceQuota, error) {
			return nil, errors.New("etcd is gone")
		},
		UpdateStatusFunc: func(context.Context, *corev1.ResourceQuota) (*corev1.ResourceQuota, error) {
			t.Fatal("no quota to write")
			return nil, nil
		},
	}
	p, err := New(nil, quotas, gates)
	if err != nil {
		t.Fatal(err)
	}
	err = p.Validate(context.Background(), attrs(admission.Create, "pods", "", podOf("p", nil, nil), nil))
	got := []any{errText(err), code(err)}
	if d := cmp.Diff([]any{"error resolving quota: etcd is gone", int32(500)}, got); d != "" {
		t.Errorf("[message, code] (-want +got):\n%s", d)
	}
}
