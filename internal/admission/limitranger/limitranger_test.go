package limitranger

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

func limitRange(items ...corev1.LimitRangeItem) *corev1.LimitRange {
	return &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "lr", Namespace: "ns"}, Spec: corev1.LimitRangeSpec{Limits: items}}
}

func container(name string, requests, limits corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Image: "i", Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}
}

func podWith(cs ...corev1.Container) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"}, Spec: corev1.PodSpec{Containers: cs}}
}

func podAttrs(pod *corev1.Pod) *admission.Attributes {
	return &admission.Attributes{
		Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Resource: schema.GroupVersionResource{Version: "v1", Resource: "pods"},
		Name: pod.Name, Namespace: "ns", Operation: admission.Create, Object: pod,
	}
}

func static(items ...*corev1.LimitRange) LimitRanges {
	return func(_ context.Context, ns string) ([]*corev1.LimitRange, error) {
		if ns != "ns" {
			return nil, nil
		}
		return items, nil
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestAdmitDefaults(t *testing.T) {
	defaults := corev1.LimitRangeItem{Type: corev1.LimitTypeContainer,
		Default: list("cpu", "1", "memory", "1Gi"), DefaultRequest: list("cpu", "500m", "memory", "512Mi")}
	tests := []struct {
		name       string
		ranges     []*corev1.LimitRange
		pod        *corev1.Pod
		wantC      []corev1.ResourceRequirements
		wantInit   []corev1.ResourceRequirements
		annotation string
	}{{
		name:       "nothing set",
		ranges:     []*corev1.LimitRange{limitRange(defaults)},
		pod:        podWith(container("a", nil, nil)),
		wantC:      []corev1.ResourceRequirements{{Requests: list("cpu", "500m", "memory", "512Mi"), Limits: list("cpu", "1", "memory", "1Gi")}},
		annotation: "LimitRanger plugin set: cpu, memory request for container a; cpu, memory limit for container a",
	}, {
		name:   "own values kept, init container too",
		ranges: []*corev1.LimitRange{limitRange(defaults)},
		pod: func() *corev1.Pod {
			p := podWith(container("a", list("cpu", "100m"), list("cpu", "2", "memory", "2Gi")))
			p.Spec.InitContainers = []corev1.Container{container("i", list("cpu", "1", "memory", "1Mi"), nil)}
			return p
		}(),
		wantC:      []corev1.ResourceRequirements{{Requests: list("cpu", "100m", "memory", "512Mi"), Limits: list("cpu", "2", "memory", "2Gi")}},
		wantInit:   []corev1.ResourceRequirements{{Requests: list("cpu", "1", "memory", "1Mi"), Limits: list("cpu", "1", "memory", "1Gi")}},
		annotation: "LimitRanger plugin set: memory request for container a; cpu, memory limit for init container i",
	}, {
		name:   "all set: no annotation",
		ranges: []*corev1.LimitRange{limitRange(defaults)},
		pod:    podWith(container("a", list("cpu", "1", "memory", "1"), list("cpu", "1", "memory", "1"))),
		wantC:  []corev1.ResourceRequirements{{Requests: list("cpu", "1", "memory", "1"), Limits: list("cpu", "1", "memory", "1")}},
	}, {
		name: "pod and pvc types give no defaults",
		ranges: []*corev1.LimitRange{limitRange(
			corev1.LimitRangeItem{Type: corev1.LimitTypePod, Default: list("cpu", "1")},
			corev1.LimitRangeItem{Type: corev1.LimitTypePersistentVolumeClaim, DefaultRequest: list("storage", "1Gi")})},
		pod:   podWith(container("a", nil, nil)),
		wantC: []corev1.ResourceRequirements{{}},
	}, {
		name: "second range replaces the annotation",
		ranges: []*corev1.LimitRange{
			limitRange(corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, DefaultRequest: list("cpu", "1")}),
			limitRange(corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, DefaultRequest: list("cpu", "2", "memory", "1Mi")}),
		},
		pod:        podWith(container("a", nil, nil)),
		wantC:      []corev1.ResourceRequirements{{Requests: list("cpu", "1", "memory", "1Mi")}},
		annotation: "LimitRanger plugin set: memory request for container a",
	}, {
		name: "later item of one range wins",
		ranges: []*corev1.LimitRange{limitRange(
			corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Default: list("cpu", "1")},
			corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Default: list("cpu", "3")})},
		pod:        podWith(container("a", nil, nil)),
		wantC:      []corev1.ResourceRequirements{{Limits: list("cpu", "3")}},
		annotation: "LimitRanger plugin set: cpu limit for container a",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := New(static(tt.ranges...), Options{}).Admit(context.Background(), podAttrs(tt.pod)); err != nil {
				t.Fatal(err)
			}
			var got, gotInit []corev1.ResourceRequirements
			for _, c := range tt.pod.Spec.Containers {
				got = append(got, c.Resources)
			}
			for _, c := range tt.pod.Spec.InitContainers {
				gotInit = append(gotInit, c.Resources)
			}
			if d := cmp.Diff(tt.wantC, got); d != "" {
				t.Errorf("containers (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.wantInit, gotInit); d != "" {
				t.Errorf("init containers (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.annotation, tt.pod.Annotations[Annotation]); d != "" {
				t.Errorf("annotation (-want +got):\n%s", d)
			}
		})
	}
}

func TestValidatePod(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	ctr := func(min, max, ratio corev1.ResourceList) *corev1.LimitRange {
		return limitRange(corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Min: min, Max: max, MaxLimitRequestRatio: ratio})
	}
	podItem := func(min, max, ratio corev1.ResourceList) *corev1.LimitRange {
		return limitRange(corev1.LimitRangeItem{Type: corev1.LimitTypePod, Min: min, Max: max, MaxLimitRequestRatio: ratio})
	}
	tests := []struct {
		name string
		lr   *corev1.LimitRange
		pod  *corev1.Pod
		opts Options
		want string
	}{{
		name: "within bounds",
		lr:   ctr(list("cpu", "100m"), list("cpu", "2"), list("cpu", "4")),
		pod:  podWith(container("a", list("cpu", "500m"), list("cpu", "1"))),
	}, {
		name: "min: no request",
		lr:   ctr(list("cpu", "100m"), nil, nil),
		pod:  podWith(container("a", nil, nil)),
		want: `pods "p" is forbidden: minimum cpu usage per Container is 100m.  No request is specified`,
	}, {
		name: "min: request below",
		lr:   ctr(list("memory", "1Mi"), nil, nil),
		pod:  podWith(container("a", list("memory", "1Ki"), nil)),
		want: `pods "p" is forbidden: minimum memory usage per Container is 1Mi, but request is 1Ki`,
	}, {
		name: "min: limit below",
		lr:   ctr(list("cpu", "100m"), nil, nil),
		pod:  podWith(container("a", list("cpu", "100m"), list("cpu", "50m"))),
		want: `pods "p" is forbidden: minimum cpu usage per Container is 100m, but limit is 50m`,
	}, {
		name: "max: no limit",
		lr:   ctr(nil, list("cpu", "1"), nil),
		pod:  podWith(container("a", list("cpu", "100m"), nil)),
		want: `pods "p" is forbidden: maximum cpu usage per Container is 1.  No limit is specified`,
	}, {
		name: "max: limit above",
		lr:   ctr(nil, list("cpu", "1"), nil),
		pod:  podWith(container("a", nil, list("cpu", "1001m"))),
		want: `pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 1001m`,
	}, {
		name: "max: request above",
		lr:   ctr(nil, list("cpu", "1"), nil),
		pod:  podWith(container("a", list("cpu", "2"), list("cpu", "1"))),
		want: `pods "p" is forbidden: maximum cpu usage per Container is 1, but request is 2`,
	}, {
		name: "ratio: no request",
		lr:   ctr(nil, nil, list("cpu", "2")),
		pod:  podWith(container("a", nil, list("cpu", "1"))),
		want: `pods "p" is forbidden: cpu max limit to request ratio per Container is 2, but no request is specified or request is 0`,
	}, {
		name: "ratio: no limit",
		lr:   ctr(nil, nil, list("cpu", "2")),
		pod:  podWith(container("a", list("cpu", "1"), nil)),
		want: `pods "p" is forbidden: cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0`,
	}, {
		name: "ratio: above",
		lr:   ctr(nil, nil, list("cpu", "2")),
		pod:  podWith(container("a", list("cpu", "100m"), list("cpu", "250m"))),
		want: `pods "p" is forbidden: cpu max limit to request ratio per Container is 2, but provided ratio is 2.500000`,
	}, {
		name: "ratio: equal is fine",
		lr:   ctr(nil, nil, list("cpu", "2")),
		pod:  podWith(container("a", list("cpu", "100m"), list("cpu", "200m"))),
	}, {
		name: "several violations are aggregated",
		lr:   ctr(list("cpu", "1", "memory", "1Gi"), nil, nil),
		pod:  podWith(container("a", nil, nil)),
		want: `pods "p" is forbidden: [minimum cpu usage per Container is 1.  No request is specified, minimum memory usage per Container is 1Gi.  No request is specified]`,
	}, {
		name: "identical messages of two containers are shown once",
		lr:   ctr(list("cpu", "1"), nil, nil),
		pod:  podWith(container("a", nil, nil), container("b", nil, nil)),
		want: `pods "p" is forbidden: minimum cpu usage per Container is 1.  No request is specified`,
	}, {
		name: "init containers are checked",
		lr:   ctr(nil, list("cpu", "1"), nil),
		pod: func() *corev1.Pod {
			p := podWith(container("a", nil, list("cpu", "1")))
			p.Spec.InitContainers = []corev1.Container{container("i", nil, list("cpu", "3"))}
			return p
		}(),
		want: `pods "p" is forbidden: maximum cpu usage per Container is 1, but limit is 3`,
	}, {
		name: "pod max: containers summed",
		lr:   podItem(nil, list("cpu", "1"), nil),
		pod:  podWith(container("a", nil, list("cpu", "600m")), container("b", nil, list("cpu", "600m"))),
		want: `pods "p" is forbidden: maximum cpu usage per Pod is 1, but limit is 1200m`,
	}, {
		name: "pod max: the largest init container counts",
		lr:   podItem(nil, list("cpu", "1"), nil),
		pod: func() *corev1.Pod {
			p := podWith(container("a", nil, list("cpu", "100m")))
			p.Spec.InitContainers = []corev1.Container{container("i", nil, list("cpu", "2"))}
			return p
		}(),
		want: `pods "p" is forbidden: maximum cpu usage per Pod is 1, but limit is 2`,
	}, {
		name: "pod max: sidecars add to containers and to later init containers",
		lr:   podItem(nil, list("cpu", "10"), nil),
		pod: func() *corev1.Pod {
			p := podWith(container("a", nil, list("cpu", "1")))
			side := container("s", nil, list("cpu", "2"))
			side.RestartPolicy = &always
			p.Spec.InitContainers = []corev1.Container{side, container("i", nil, list("cpu", "9"))}
			return p
		}(),
		want: `pods "p" is forbidden: maximum cpu usage per Pod is 10, but limit is 11`,
	}, {
		name: "pod min with pod-level resources on",
		lr:   podItem(list("cpu", "1"), nil, nil),
		pod: func() *corev1.Pod {
			p := podWith(container("a", list("cpu", "100m"), nil))
			p.Spec.Resources = &corev1.ResourceRequirements{Requests: list("cpu", "2")}
			return p
		}(),
		opts: Options{PodLevelResources: true},
	}, {
		name: "pod min with pod-level resources off",
		lr:   podItem(list("cpu", "1"), nil, nil),
		pod: func() *corev1.Pod {
			p := podWith(container("a", list("cpu", "100m"), nil))
			p.Spec.Resources = &corev1.ResourceRequirements{Requests: list("cpu", "2")}
			return p
		}(),
		want: `pods "p" is forbidden: minimum cpu usage per Pod is 1, but request is 100m`,
	}, {
		name: "big quantities compare in units",
		lr:   ctr(nil, list("memory", "8E"), nil),
		pod:  podWith(container("a", nil, list("memory", "7E"))),
	}, {
		name: "big quantities refused in units",
		lr:   ctr(nil, list("memory", "7E"), nil),
		pod:  podWith(container("a", nil, list("memory", "8E"))),
		want: `pods "p" is forbidden: maximum memory usage per Container is 7E, but limit is 8E`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := New(static(tt.lr), tt.opts).Validate(context.Background(), podAttrs(tt.pod))
			if d := cmp.Diff(tt.want, errText(err)); d != "" {
				t.Fatalf("error (-want +got):\n%s", d)
			}
			if err != nil && !apierrors.IsForbidden(err) {
				t.Errorf("error %v is not a 403", err)
			}
		})
	}
}

func TestValidateClaim(t *testing.T) {
	lr := limitRange(corev1.LimitRangeItem{Type: corev1.LimitTypePersistentVolumeClaim, Min: list("storage", "1Gi"), Max: list("storage", "10Gi")})
	tests := []struct {
		name     string
		requests corev1.ResourceList
		limits   corev1.ResourceList
		want     string
	}{{
		name:     "within",
		requests: list("storage", "5Gi"),
	}, {
		name: "no request",
		want: `persistentvolumeclaims "c" is forbidden: [minimum storage usage per PersistentVolumeClaim is 1Gi.  No request is specified, maximum storage usage per PersistentVolumeClaim is 10Gi.  No request is specified]`,
	}, {
		name:     "below",
		requests: list("storage", "1Mi"),
		want:     `persistentvolumeclaims "c" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 1Mi`,
	}, {
		name:     "above, limits ignored",
		requests: list("storage", "11Gi"),
		limits:   list("storage", "1Gi"),
		want:     `persistentvolumeclaims "c" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 11Gi`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns"},
				Spec: corev1.PersistentVolumeClaimSpec{Resources: corev1.VolumeResourceRequirements{Requests: tt.requests, Limits: tt.limits}}}
			for _, op := range []admission.Operation{admission.Create, admission.Update} {
				a := &admission.Attributes{
					Kind:     schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolumeClaim"},
					Resource: schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"},
					Name:     "c", Namespace: "ns", Operation: op, Object: pvc,
				}
				if op == admission.Update {
					a.OldObject = pvc.DeepCopy()
				}
				err := New(static(lr), Options{}).Validate(context.Background(), a)
				if d := cmp.Diff(tt.want, errText(err)); d != "" {
					t.Errorf("%s: error (-want +got):\n%s", op, d)
				}
			}
		})
	}
}

func TestWhichRequests(t *testing.T) {
	lr := limitRange(corev1.LimitRangeItem{Type: corev1.LimitTypeContainer, Min: list("cpu", "1"), DefaultRequest: list("memory", "1Mi")})
	deleting := podWith(container("a", nil, nil))
	deleting.DeletionTimestamp = &metav1.Time{}
	tests := []struct {
		name        string
		op          admission.Operation
		subresource string
		kind        string
		old         runtime.Object
		checked     bool
	}{
		{name: "pod create", op: admission.Create, kind: "Pod", checked: true},
		{name: "pod update", op: admission.Update, kind: "Pod", old: podWith()},
		{name: "pod resize", op: admission.Update, subresource: "resize", kind: "Pod", old: podWith(), checked: true},
		{name: "pod resize of a deleting pod", op: admission.Update, subresource: "resize", kind: "Pod", old: deleting},
		{name: "pod status", op: admission.Update, subresource: "status", kind: "Pod", old: podWith()},
		{name: "pod ephemeral containers", op: admission.Update, subresource: "ephemeralcontainers", kind: "Pod", old: podWith()},
		{name: "pod delete", op: admission.Delete, kind: "Pod"},
		{name: "other kind", op: admission.Create, kind: "ConfigMap"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := podWith(container("a", nil, nil))
			a := podAttrs(pod)
			a.Operation, a.Subresource, a.Kind.Kind, a.OldObject = tt.op, tt.subresource, tt.kind, tt.old
			p := New(static(lr), Options{})
			if err := p.Admit(context.Background(), a); err != nil {
				t.Fatalf("Admit: %v", err)
			}
			_, defaulted := pod.Spec.Containers[0].Resources.Requests["memory"]
			err := p.Validate(context.Background(), a)
			if diff := cmp.Diff([]bool{tt.checked, tt.checked}, []bool{defaulted, err != nil}); diff != "" {
				t.Errorf("[defaulted, refused] (-want +got):\n%s", diff)
			}
		})
	}
}

func TestListError(t *testing.T) {
	boom := errors.New("boom")
	p := New(func(context.Context, string) ([]*corev1.LimitRange, error) { return nil, boom }, Options{})
	err := p.Admit(context.Background(), podAttrs(podWith(container("a", nil, nil))))
	if d := cmp.Diff(`pods "p" is forbidden: unable to CREATE /v1, Resource=pods at this time because there was an error enforcing limit ranges`, errText(err)); d != "" {
		t.Errorf("error (-want +got):\n%s", d)
	}
	if !apierrors.IsForbidden(err) {
		t.Errorf("error %v is not a 403", err)
	}
	// The response hides the cause; the error built for it keeps it.
	if !errors.Is(&listError{err: boom}, boom) {
		t.Error("listError does not wrap its cause")
	}
}
