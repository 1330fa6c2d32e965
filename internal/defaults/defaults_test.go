package defaults

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// applied decodes in, applies defaults and re-encodes, so that cases read
// like the YAML a user sends and kubectl shows back.
func applied(t *testing.T, obj runtime.Object, in string) string {
	t.Helper()
	if err := json.Unmarshal([]byte(in), obj); err != nil {
		t.Fatal(err)
	}
	Apply(obj)
	out, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestApplyJSON(t *testing.T) {
	tests := []struct {
		name string
		obj  runtime.Object
		in   string
		want string
	}{
		{"validating webhook", &admissionv1.ValidatingWebhookConfiguration{},
			`{"metadata":{"name":"c"},"webhooks":[{"name":"a.b.c","clientConfig":{"service":{"namespace":"ns","name":"s"}},"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}],"sideEffects":"None","admissionReviewVersions":["v1"]}]}`,
			`{"metadata":{"name":"c"},"webhooks":[{"name":"a.b.c","clientConfig":{"service":{"namespace":"ns","name":"s","port":443}},"rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"],"scope":"*"}],"failurePolicy":"Fail","matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},"sideEffects":"None","timeoutSeconds":10,"admissionReviewVersions":["v1"]}]}`},
		{"mutating webhook", &admissionv1.MutatingWebhookConfiguration{},
			`{"metadata":{"name":"c"},"webhooks":[{"name":"a.b.c","clientConfig":{"url":"https://h"},"sideEffects":"None","admissionReviewVersions":["v1"]}]}`,
			`{"metadata":{"name":"c"},"webhooks":[{"name":"a.b.c","clientConfig":{"url":"https://h"},"failurePolicy":"Fail","matchPolicy":"Equivalent","namespaceSelector":{},"objectSelector":{},"sideEffects":"None","timeoutSeconds":10,"admissionReviewVersions":["v1"],"reinvocationPolicy":"Never"}]}`},
		{"validating policy", &admissionv1.ValidatingAdmissionPolicy{},
			`{"metadata":{"name":"p"},"spec":{"matchConstraints":{"resourceRules":[{"operations":["CREATE"],"apiGroups":["apps"],"apiVersions":["v1"],"resources":["deployments"]}]},"validations":[{"expression":"true"}]}}`,
			`{"metadata":{"name":"p"},"spec":{"matchConstraints":{"namespaceSelector":{},"objectSelector":{},"resourceRules":[{"operations":["CREATE"],"apiGroups":["apps"],"apiVersions":["v1"],"resources":["deployments"],"scope":"*"}],"matchPolicy":"Equivalent"},"validations":[{"expression":"true"}],"failurePolicy":"Fail"},"status":{}}`},
		{"binding without match resources", &admissionv1.ValidatingAdmissionPolicyBinding{},
			`{"metadata":{"name":"b"},"spec":{"policyName":"p","validationActions":["Deny"],"paramRef":{"name":"x"}}}`,
			`{"metadata":{"name":"b"},"spec":{"policyName":"p","paramRef":{"name":"x"},"validationActions":["Deny"]}}`},
		{"mutating policy binding", &admissionv1.MutatingAdmissionPolicyBinding{},
			`{"metadata":{"name":"b"},"spec":{"policyName":"p","matchResources":{"excludeResourceRules":[{"operations":["CREATE"]}]}}}`,
			`{"metadata":{"name":"b"},"spec":{"policyName":"p","matchResources":{"namespaceSelector":{},"objectSelector":{},"excludeResourceRules":[{"operations":["CREATE"],"scope":"*"}],"matchPolicy":"Equivalent"}}}`},
		{"role binding subjects", &rbacv1.RoleBinding{},
			`{"metadata":{"name":"b"},"subjects":[{"kind":"User","name":"u"},{"kind":"Group","name":"g"},{"kind":"ServiceAccount","name":"s","namespace":"ns"}],"roleRef":{"kind":"Role","name":"r"}}`,
			`{"metadata":{"name":"b"},"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"u"},{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"g"},{"kind":"ServiceAccount","name":"s","namespace":"ns"}],"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"}}`},
		{"pod", &corev1.Pod{},
			`{"metadata":{"name":"p"},"spec":{"containers":[{"name":"a","image":"nginx","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"1"}},"readinessProbe":{"httpGet":{"port":80}}}]}}`,
			`{"metadata":{"name":"p"},"spec":{"containers":[{"name":"a","image":"nginx","ports":[{"containerPort":80,"protocol":"TCP"}],"resources":{"limits":{"cpu":"1"},"requests":{"cpu":"1"}},"readinessProbe":{"httpGet":{"path":"/","port":80,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"Always"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler","enableServiceLinks":true},"status":{}}`},
		{"pod volumes", &corev1.Pod{},
			`{"metadata":{"name":"p"},"spec":{"volumes":[{"name":"a"},{"name":"b","secret":{"secretName":"s"}},{"name":"c","hostPath":{"path":"/x"}}],"containers":[]}}`,
			`{"metadata":{"name":"p"},"spec":{"volumes":[{"name":"a","emptyDir":{}},{"name":"b","secret":{"secretName":"s","defaultMode":420}},{"name":"c","hostPath":{"path":"/x","type":""}}],"containers":[],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","securityContext":{},"schedulerName":"default-scheduler","enableServiceLinks":true},"status":{}}`},
		{"service", &corev1.Service{},
			`{"metadata":{"name":"s"},"spec":{"ports":[{"port":80},{"port":53,"protocol":"UDP","targetPort":"dns"}]}}`,
			`{"metadata":{"name":"s"},"spec":{"ports":[{"protocol":"TCP","port":80,"targetPort":80},{"protocol":"UDP","port":53,"targetPort":"dns"}],"type":"ClusterIP","sessionAffinity":"None","internalTrafficPolicy":"Cluster"},"status":{"loadBalancer":{}}}`},
		{"load balancer service", &corev1.Service{},
			`{"metadata":{"name":"s"},"spec":{"type":"LoadBalancer","sessionAffinity":"ClientIP","ports":[{"port":80}]}}`,
			`{"metadata":{"name":"s"},"spec":{"ports":[{"protocol":"TCP","port":80,"targetPort":80}],"type":"LoadBalancer","sessionAffinity":"ClientIP","externalTrafficPolicy":"Cluster","sessionAffinityConfig":{"clientIP":{"timeoutSeconds":10800}},"allocateLoadBalancerNodePorts":true,"internalTrafficPolicy":"Cluster"},"status":{"loadBalancer":{}}}`},
		{"secret", &corev1.Secret{},
			`{"metadata":{"name":"s"},"data":{"a":"eA=="},"stringData":{"a":"y","b":"z"}}`,
			`{"metadata":{"name":"s"},"data":{"a":"eQ==","b":"eg=="},"type":"Opaque"}`},
		{"namespace", &corev1.Namespace{},
			`{"metadata":{"name":"team"}}`,
			`{"metadata":{"name":"team","labels":{"kubernetes.io/metadata.name":"team"}},"spec":{},"status":{}}`},
		{"pvc", &corev1.PersistentVolumeClaim{},
			`{"metadata":{"name":"c"},"spec":{"accessModes":["ReadWriteOnce"]}}`,
			`{"metadata":{"name":"c"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{},"volumeMode":"Filesystem"},"status":{"phase":"Pending"}}`},
		{"pv", &corev1.PersistentVolume{},
			`{"metadata":{"name":"v"},"spec":{"nfs":{"server":"s","path":"/"}}}`,
			`{"metadata":{"name":"v"},"spec":{"nfs":{"server":"s","path":"/"},"persistentVolumeReclaimPolicy":"Retain","volumeMode":"Filesystem"},"status":{"phase":"Pending"}}`},
		{"storage class", &storagev1.StorageClass{},
			`{"metadata":{"name":"sc"},"provisioner":"p"}`,
			`{"metadata":{"name":"sc"},"provisioner":"p","reclaimPolicy":"Delete","volumeBindingMode":"Immediate"}`},
		{"csi driver", &storagev1.CSIDriver{},
			`{"metadata":{"name":"d"},"spec":{}}`,
			`{"metadata":{"name":"d"},"spec":{"attachRequired":true,"podInfoOnMount":false,"volumeLifecycleModes":["Persistent"],"storageCapacity":false,"fsGroupPolicy":"ReadWriteOnceWithFSType","requiresRepublish":false,"seLinuxMount":false}}`},
		{"custom resource definition", &apiextensionsv1.CustomResourceDefinition{},
			`{"metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","names":{"plural":"widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true}]}}`,
			`{"metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true}],"conversion":{"strategy":"None"}},"status":{"conditions":null,"acceptedNames":{"plural":"","kind":""},"storedVersions":["v1"]}}`},
		{"custom resource definition with a conversion webhook", &apiextensionsv1.CustomResourceDefinition{},
			`{"metadata":{"name":"w"},"spec":{"conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"service":{"namespace":"ns","name":"conv"}}}}}}`,
			`{"metadata":{"name":"w"},"spec":{"group":"","names":{"plural":"","kind":""},"scope":"","versions":null,"conversion":{"strategy":"Webhook","webhook":{"clientConfig":{"service":{"namespace":"ns","name":"conv","port":443}},"conversionReviewVersions":null}}},"status":{"conditions":null,"acceptedNames":{"plural":"","kind":""},"storedVersions":null}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, applied(t, tc.obj, tc.in)); diff != "" {
				t.Errorf("defaulted object (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWorkloadDefaults(t *testing.T) {
	tmpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a", Image: "nginx:1.27"}}}}

	d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Template: *tmpl.DeepCopy()}}
	Apply(d)
	wantDeploy := appsv1.DeploymentSpec{
		Replicas: ptr(int32(1)),
		Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
			MaxUnavailable: ptr(intstr.FromString("25%")), MaxSurge: ptr(intstr.FromString("25%")),
		}},
		RevisionHistoryLimit:    ptr(int32(10)),
		ProgressDeadlineSeconds: ptr(int32(600)),
		Template:                defaultedTemplate(),
	}
	if diff := cmp.Diff(wantDeploy, d.Spec); diff != "" {
		t.Errorf("deployment (-want +got):\n%s", diff)
	}

	ss := &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Template: *tmpl.DeepCopy(), VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{}}}}
	Apply(ss)
	wantSS := appsv1.StatefulSetSpec{
		Replicas:            ptr(int32(1)),
		Template:            defaultedTemplate(),
		PodManagementPolicy: appsv1.OrderedReadyPodManagement,
		UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(0)), MaxUnavailable: ptr(intstr.FromInt32(1))}},
		RevisionHistoryLimit: ptr(int32(10)),
		PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
			WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
		},
		VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{
			Spec:   corev1.PersistentVolumeClaimSpec{VolumeMode: ptr(corev1.PersistentVolumeFilesystem)},
			Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
		}},
	}
	if diff := cmp.Diff(wantSS, ss.Spec); diff != "" {
		t.Errorf("statefulset (-want +got):\n%s", diff)
	}

	ds := &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Template: *tmpl.DeepCopy()}}
	Apply(ds)
	wantDS := appsv1.DaemonSetSpec{
		Template: defaultedTemplate(),
		UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType, RollingUpdate: &appsv1.RollingUpdateDaemonSet{
			MaxUnavailable: ptr(intstr.FromInt32(1)), MaxSurge: ptr(intstr.FromInt32(0)),
		}},
		RevisionHistoryLimit: ptr(int32(10)),
	}
	if diff := cmp.Diff(wantDS, ds.Spec); diff != "" {
		t.Errorf("daemonset (-want +got):\n%s", diff)
	}

	rs := &appsv1.ReplicaSet{}
	Apply(rs)
	if rs.Spec.Replicas == nil || *rs.Spec.Replicas != 1 {
		t.Errorf("replicaset replicas = %v", rs.Spec.Replicas)
	}
}

// defaultedTemplate is the workload template above after defaulting; pod
// templates get no enableServiceLinks, unlike pods.
func defaultedTemplate() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		Containers: []corev1.Container{{
			Name: "a", Image: "nginx:1.27", ImagePullPolicy: corev1.PullIfNotPresent,
			TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		}},
		RestartPolicy:                 corev1.RestartPolicyAlways,
		TerminationGracePeriodSeconds: ptr(int64(30)),
		DNSPolicy:                     corev1.DNSClusterFirst,
		SecurityContext:               &corev1.PodSecurityContext{},
		SchedulerName:                 "default-scheduler",
	}}
}

func TestPullPolicy(t *testing.T) {
	tests := []struct {
		image string
		want  corev1.PullPolicy
	}{
		{"nginx", corev1.PullAlways},
		{"nginx:latest", corev1.PullAlways},
		{"nginx:1.27", corev1.PullIfNotPresent},
		{"registry.example.com:5000/team/app", corev1.PullAlways},
		{"registry.example.com:5000/team/app:v1", corev1.PullIfNotPresent},
		{"nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", corev1.PullIfNotPresent},
		{"nginx:latest@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", corev1.PullAlways},
		{"Nginx", corev1.PullIfNotPresent},
		{"", corev1.PullIfNotPresent},
	}
	for _, tc := range tests {
		t.Run(tc.image, func(t *testing.T) {
			if got := pullPolicy(tc.image); got != tc.want {
				t.Errorf("pullPolicy(%q) = %s, want %s", tc.image, got, tc.want)
			}
		})
	}
}

func TestApplyKeepsSetValues(t *testing.T) {
	fp := admissionv1.Ignore
	c := &admissionv1.ValidatingWebhookConfiguration{Webhooks: []admissionv1.ValidatingWebhook{{FailurePolicy: &fp, TimeoutSeconds: ptr(int32(5))}}}
	Apply(c)
	if *c.Webhooks[0].FailurePolicy != admissionv1.Ignore || *c.Webhooks[0].TimeoutSeconds != 5 {
		t.Errorf("explicit values overwritten: %+v", c.Webhooks[0])
	}

	lr := &corev1.LimitRange{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type: corev1.LimitTypeContainer,
		Max:  corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
		Min:  corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")},
	}}}}
	Apply(lr)
	item := lr.Spec.Limits[0]
	if item.Default.Cpu().String() != "2" || item.DefaultRequest.Cpu().String() != "2" || item.DefaultRequest.Memory().String() != "64Mi" {
		t.Errorf("limit range defaults: %+v", item)
	}

	var nilPod *corev1.Pod
	Apply(nilPod)
	Apply(nil)
	Apply(&metav1.Status{})
}
