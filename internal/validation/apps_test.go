package validation

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/portcullis/portcullis/internal/defaults"
)

func template(labels map[string]string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}},
	}
}

func validDeployment() *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: omNS("web", "ns"), Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: template(map[string]string{"app": "web"}),
	}}
}

func TestDeploymentCreate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*appsv1.Deployment)
		want   []string
	}{
		{"valid", func(*appsv1.Deployment) {}, nil},
		{"selector required", func(d *appsv1.Deployment) { d.Spec.Selector = nil },
			[]string{`spec.selector: Required value`, `spec.template.metadata.labels: Invalid value: {"app":"web"}: ` + "`selector` does not match template `labels`"}},
		{"empty selector", func(d *appsv1.Deployment) { d.Spec.Selector = &metav1.LabelSelector{} },
			[]string{`spec.selector: Invalid value: {}: empty selector is invalid for deployment`}},
		{"selector does not match", func(d *appsv1.Deployment) { d.Spec.Template.Labels = map[string]string{"app": "api"} },
			[]string{`spec.template.metadata.labels: Invalid value: {"app":"api"}: ` + "`selector` does not match template `labels`"}},
		{"negative replicas", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr(int32(-1)) },
			[]string{`spec.replicas: Invalid value: -1: must be greater than or equal to 0`}},
		{"restart policy", func(d *appsv1.Deployment) { d.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever },
			[]string{`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`}},
		{"deadline", func(d *appsv1.Deployment) { d.Spec.Template.Spec.ActiveDeadlineSeconds = ptr(int64(5)) },
			[]string{`spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported`}},
		{"container without image", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "" },
			[]string{`spec.template.spec.containers[0].image: Required value`}},
		{"bad template label", func(d *appsv1.Deployment) {
			d.Spec.Template.Labels["x/y/z"] = "1"
		}, []string{`spec.template.labels: Invalid value: "x/y/z": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`}},
		{"rolling update zero and zero", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr(intstr.FromInt32(0)), MaxSurge: ptr(intstr.FromString("0%"))}
		}, []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"}},
		{"rolling update over 100%", func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr(intstr.FromString("150%")), MaxSurge: ptr(intstr.FromString("x"))}
		}, []string{
			`spec.strategy.rollingUpdate.maxSurge: Invalid value: "x": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
			`spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%`,
		}},
		{"recreate with rolling update", func(d *appsv1.Deployment) {
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{}}
		}, []string{"spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"}},
		{"unknown strategy", func(d *appsv1.Deployment) { d.Spec.Strategy = appsv1.DeploymentStrategy{Type: "BlueGreen"} },
			[]string{`spec.strategy: Unsupported value: {"Type":"BlueGreen","RollingUpdate":null}: supported values: "Recreate", "RollingUpdate"`}},
		{"progress deadline", func(d *appsv1.Deployment) { d.Spec.MinReadySeconds = 600 },
			[]string{`spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := validDeployment()
			defaults.Apply(d)
			tc.mutate(d)
			expectErrors(t, Create(d), tc.want)
		})
	}
}

func TestWorkloadUpdates(t *testing.T) {
	old := defaulted(validDeployment())
	old.ResourceVersion = "1"
	d := old.DeepCopy()
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "tier": "x"}}
	d.Spec.Template.Labels["tier"] = "x"
	expectErrors(t, Update(d, old), []string{`spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"x"}}: field is immutable`})

	oldSS := defaulted(&appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns", ResourceVersion: "1"}, Spec: appsv1.StatefulSetSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, Template: template(map[string]string{"app": "db"}), ServiceName: "db",
	}})
	expectErrors(t, Create(oldSS), nil)
	ss := oldSS.DeepCopy()
	ss.Spec.Replicas = ptr(int32(3))
	expectErrors(t, Update(ss, oldSS), nil)
	ss.Spec.ServiceName = "other"
	expectErrors(t, Update(ss, oldSS), []string{`spec.serviceName: Invalid value: "other": field is immutable`})
}

func TestOtherWorkloadsCreate(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
	ss := defaulted(&appsv1.StatefulSet{ObjectMeta: omNS("db.x", "ns"), Spec: appsv1.StatefulSetSpec{Selector: sel, Template: template(map[string]string{"app": "x"})}})
	ss.Spec.PodManagementPolicy = "Random"
	expectErrors(t, Create(ss), []string{
		`metadata.name: Invalid value: "db.x": must not contain dots`,
		`spec.podManagementPolicy: Invalid value: "Random": must be 'OrderedReady' or 'Parallel'`,
	})

	ds := defaulted(&appsv1.DaemonSet{ObjectMeta: omNS("agent", "ns"), Spec: appsv1.DaemonSetSpec{Selector: sel, Template: template(map[string]string{"app": "x"})}})
	expectErrors(t, Create(ds), nil)
	ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge = ptr(intstr.FromInt32(1))
	expectErrors(t, Create(ds), []string{`spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero`})

	rs := defaulted(&appsv1.ReplicaSet{ObjectMeta: omNS("rs", "ns"), Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{}, Template: template(nil)}})
	expectErrors(t, Create(rs), []string{`spec.selector: Invalid value: {}: empty selector is invalid for deployment`})
}
