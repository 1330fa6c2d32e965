package validation

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/portcullis/portcullis/internal/defaults"
)

const subdomainMsg = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
const labelMsg = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`

func defaulted[T runtime.Object](obj T) T {
	defaults.Apply(obj)
	return obj
}

func TestNameRulesPerKind(t *testing.T) {
	tests := []struct {
		name string
		obj  runtime.Object
		want []string
	}{
		{"namespace is a DNS label", &corev1.Namespace{ObjectMeta: om("a.b")},
			[]string{`metadata.name: Invalid value: "a.b": must not contain dots`}},
		{"service is a DNS-1035 label", defaulted(&corev1.Service{ObjectMeta: omNS("1svc", "ns"), Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}),
			[]string{`metadata.name: Invalid value: "1svc": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`}},
		{"configmap is a subdomain", &corev1.ConfigMap{ObjectMeta: omNS("a.b", "ns")}, nil},
		{"configmap upper case", &corev1.ConfigMap{ObjectMeta: omNS("A", "ns")},
			[]string{`metadata.name: Invalid value: "A": ` + subdomainMsg}},
		{"node is a subdomain", &corev1.Node{ObjectMeta: om("node-1.example.com")}, nil},
		{"node takes no namespace", &corev1.Node{ObjectMeta: omNS("n", "ns")},
			[]string{`metadata.namespace: Forbidden: not allowed on this type`}},
		{"secret needs a namespace", defaulted(&corev1.Secret{ObjectMeta: om("s")}),
			[]string{`metadata.namespace: Required value`}},
		{"namespace with bad namespace name", &corev1.ServiceAccount{ObjectMeta: omNS("sa", "Bad")},
			[]string{`metadata.namespace: Invalid value: "Bad": ` + labelMsg}},
		{"core event name is lenient", &corev1.Event{ObjectMeta: omNS("Pod.Name:1", "ns"), InvolvedObject: corev1.ObjectReference{Namespace: "ns"}}, nil},
		{"bad labels and annotations", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", Labels: map[string]string{"a": "b c"}, Annotations: map[string]string{"/x": ""}}},
			[]string{
				`metadata.labels: Invalid value: "b c": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
				`metadata.annotations: Invalid value: "/x": prefix part must be non-empty`,
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectErrors(t, Create(tc.obj), tc.want)
		})
	}
}

func TestConfigMapAndSecret(t *testing.T) {
	big := strings.Repeat("x", maxDataSize)
	tests := []struct {
		name string
		obj  runtime.Object
		want []string
	}{
		{"configmap keys", &corev1.ConfigMap{ObjectMeta: omNS("c", "ns"), Data: map[string]string{"a b": "", "ok": ""}, BinaryData: map[string][]byte{"ok": nil}},
			[]string{
				`data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
				`data[ok]: Invalid value: "ok": duplicate of key present in binaryData`,
			}},
		{"configmap too large", &corev1.ConfigMap{ObjectMeta: omNS("c", "ns"), Data: map[string]string{"a": big, "b": "y"}},
			[]string{`[]: Too long: may not be more than 1048576 bytes`}},
		{"configmap at the limit", &corev1.ConfigMap{ObjectMeta: omNS("c", "ns"), Data: map[string]string{"a": big}}, nil},
		{"secret too large", defaulted(&corev1.Secret{ObjectMeta: omNS("s", "ns"), Data: map[string][]byte{"a": []byte(big + "y")}}),
			[]string{`data: Too long: may not be more than 1048576 bytes`}},
		{"secret key", defaulted(&corev1.Secret{ObjectMeta: omNS("s", "ns"), Data: map[string][]byte{"..": nil}}),
			[]string{`data[..]: Invalid value: "..": must not be '..'`}},
		{"tls secret without keys", &corev1.Secret{ObjectMeta: omNS("s", "ns"), Type: corev1.SecretTypeTLS},
			[]string{`data[tls.crt]: Required value`, `data[tls.key]: Required value`}},
		{"dockerconfigjson not json", &corev1.Secret{ObjectMeta: omNS("s", "ns"), Type: corev1.SecretTypeDockerConfigJson, Data: map[string][]byte{".dockerconfigjson": []byte("{")}},
			[]string{`data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": unexpected end of JSON input`}},
		{"basic auth without fields", &corev1.Secret{ObjectMeta: omNS("s", "ns"), Type: corev1.SecretTypeBasicAuth},
			[]string{`data[username]: Required value`, `data[password]: Required value`}},
		{"service account token needs the annotation", &corev1.Secret{ObjectMeta: omNS("s", "ns"), Type: corev1.SecretTypeServiceAccountToken},
			[]string{`metadata.annotations[kubernetes.io/service-account.name]: Required value`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectErrors(t, Create(tc.obj), tc.want)
		})
	}
}

func TestImmutableConfigMapAndSecretUpdate(t *testing.T) {
	meta := metav1.ObjectMeta{Name: "c", Namespace: "ns", ResourceVersion: "1"}
	oldCM := &corev1.ConfigMap{ObjectMeta: meta, Immutable: ptr(true), Data: map[string]string{"a": "1"}}
	cm := oldCM.DeepCopy()
	cm.Data["a"] = "2"
	cm.Immutable = ptr(false)
	expectErrors(t, Update(cm, oldCM), []string{
		"immutable: Forbidden: field is immutable when `immutable` is set",
		"data: Forbidden: field is immutable when `immutable` is set",
	})
	labelsOnly := oldCM.DeepCopy()
	labelsOnly.Labels = map[string]string{"x": "y"}
	expectErrors(t, Update(labelsOnly, oldCM), nil)

	oldS := &corev1.Secret{ObjectMeta: meta, Immutable: ptr(true), Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"a": []byte("1")}}
	s := oldS.DeepCopy()
	s.Data["b"] = []byte("2")
	s.Type = corev1.SecretTypeTLS
	expectErrors(t, Update(s, oldS), []string{
		`type: Invalid value: "kubernetes.io/tls": field is immutable`,
		"data: Forbidden: field is immutable when `immutable` is set",
		`data[tls.crt]: Required value`,
		`data[tls.key]: Required value`,
	})
}

func validPod() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: omNS("p", "ns"), Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}}}
}

func TestPodCreate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*corev1.Pod)
		want   []string
	}{
		{"valid", func(*corev1.Pod) {}, nil},
		{"no containers", func(p *corev1.Pod) { p.Spec.Containers = nil }, []string{`spec.containers: Required value`}},
		{"container without name and image", func(p *corev1.Pod) { p.Spec.Containers[0].Name = ""; p.Spec.Containers[0].Image = "" },
			[]string{`spec.containers[0].name: Required value`, `spec.containers[0].image: Required value`}},
		{"container name not a label", func(p *corev1.Pod) { p.Spec.Containers[0].Name = "App" },
			[]string{`spec.containers[0].name: Invalid value: "App": ` + labelMsg}},
		{"duplicate container names", func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, p.Spec.Containers[0])
			p.Spec.InitContainers = []corev1.Container{{Name: "app", Image: "busybox"}}
		}, []string{`spec.containers[1].name: Duplicate value: "app"`, `spec.initContainers[0].name: Duplicate value: "app"`}},
		{"image with whitespace", func(p *corev1.Pod) { p.Spec.Containers[0].Image = " nginx" },
			[]string{`spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace`}},
		{"ports", func(p *corev1.Pod) {
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 80}, {Name: "http", ContainerPort: 70000, Protocol: "ICMP"}, {}}
		}, []string{
			`spec.containers[0].ports[1].name: Duplicate value: "http"`,
			`spec.containers[0].ports[1].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive`,
			`spec.containers[0].ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`,
			`spec.containers[0].ports[2].containerPort: Required value`,
		}},
		{"env", func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: ""}, {Name: "A=B"}, {Name: "X", Value: "v", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{Key: "k", LocalObjectReference: corev1.LocalObjectReference{Name: "s"}}}}}
		}, []string{
			`spec.containers[0].env[0].name: Required value`,
			`spec.containers[0].env[0].name: Invalid value: "": environment variable name must be non-empty`,
			`spec.containers[0].env[1].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than '='`,
			"spec.containers[0].env[2].valueFrom: Invalid value: \"\": may not be specified when `value` is not empty",
		}},
		{"volume mounts", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
			p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/d"}, {Name: "cache", MountPath: "/d"}}
		}, []string{
			`spec.containers[0].volumeMounts[1].name: Not found: "cache"`,
			`spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/d": must be unique`,
		}},
		{"volumes", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{
				{Name: "a", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}, HostPath: &corev1.HostPathVolumeSource{Path: "/x"}}},
				{Name: "a", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
			}
		}, []string{
			`spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type`,
			`spec.volumes[1].configMap.name: Required value`,
			`spec.volumes[1].name: Duplicate value: "a"`,
		}},
		{"requests above limits", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources = corev1.ResourceRequirements{
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")},
			}
		}, []string{`spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1`}},
		{"bad policies", func(p *corev1.Pod) {
			p.Spec.RestartPolicy = "Sometimes"
			p.Spec.DNSPolicy = "Google"
			p.Spec.Containers[0].ImagePullPolicy = "Maybe"
		}, []string{
			`spec.containers[0].imagePullPolicy: Unsupported value: "Maybe": supported values: "Always", "IfNotPresent", "Never"`,
			`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`,
			`spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"`,
		}},
		{"dns none without config", func(p *corev1.Pod) { p.Spec.DNSPolicy = corev1.DNSNone },
			[]string{"spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"}},
		{"activeDeadlineSeconds 0", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = ptr(int64(0)) },
			[]string{`spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive`}},
		{"bad service account name", func(p *corev1.Pod) { p.Spec.ServiceAccountName = "Admin" },
			[]string{`spec.serviceAccountName: Invalid value: "Admin": ` + subdomainMsg}},
		{"ephemeral containers on create", func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug", Image: "busybox"}}}
		}, []string{`spec.ephemeralContainers: Forbidden: cannot be set on create`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := validPod()
			tc.mutate(p)
			defaults.Apply(p)
			expectErrors(t, Create(p), tc.want)
		})
	}
}

func TestPodUpdate(t *testing.T) {
	old := defaulted(validPod())
	old.ResourceVersion = "1"
	img := old.DeepCopy()
	img.Spec.Containers[0].Image = "nginx:1.28"
	img.Labels = map[string]string{"a": "b"}
	expectErrors(t, Update(img, old), nil)

	added := old.DeepCopy()
	added.Spec.Containers = append(added.Spec.Containers, added.Spec.Containers[0])
	expectErrors(t, Update(added, old), []string{`spec.containers: Forbidden: pod updates may not add or remove containers`})

	changed := old.DeepCopy()
	changed.Spec.RestartPolicy = corev1.RestartPolicyNever
	errs := Update(changed, old)
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,") {
		t.Errorf("got %v", errs)
	}
}

func TestServiceCreate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*corev1.Service)
		want   []string
	}{
		{"valid", func(*corev1.Service) {}, nil},
		{"ports required", func(s *corev1.Service) { s.Spec.Ports = nil }, []string{`spec.ports: Required value`}},
		{"headless without ports", func(s *corev1.Service) { s.Spec.Ports = nil; s.Spec.ClusterIP = "None" }, nil},
		{"multiple ports need names", func(s *corev1.Service) {
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Port: 0, Protocol: "TCP", TargetPort: s.Spec.Ports[0].TargetPort})
		}, []string{
			`spec.ports[0].name: Required value`,
			`spec.ports[1].name: Required value`,
			`spec.ports[1].port: Invalid value: 0: must be between 1 and 65535, inclusive`,
		}},
		{"duplicate port", func(s *corev1.Service) {
			s.Spec.Ports[0].Name = "a"
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "b", Port: 80, Protocol: "TCP", TargetPort: s.Spec.Ports[0].TargetPort})
		}, []string{`spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}`}},
		{"bad type", func(s *corev1.Service) { s.Spec.Type = "Internal" },
			[]string{`spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`}},
		{"nodePort on ClusterIP", func(s *corev1.Service) { s.Spec.Ports[0].NodePort = 30080 },
			[]string{"spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"}},
		{"bad target port name", func(s *corev1.Service) {
			s.Spec.Ports[0].TargetPort.Type = 1
			s.Spec.Ports[0].TargetPort.StrVal = "HTTP_PORT"
		},
			[]string{
				`spec.ports[0].targetPort: Invalid value: "HTTP_PORT": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)`,
				`spec.ports[0].targetPort: Invalid value: "HTTP_PORT": must contain at least one letter (a-z)`,
			}},
		{"externalName", func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeExternalName; s.Spec.Ports = nil },
			[]string{`spec.externalName: Required value`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &corev1.Service{ObjectMeta: omNS("svc", "ns"), Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}, Selector: map[string]string{"app": "x"}}}
			defaults.Apply(s)
			tc.mutate(s)
			expectErrors(t, Create(s), tc.want)
		})
	}
}

func TestClusterScopedCoreKinds(t *testing.T) {
	cap := corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}
	tests := []struct {
		name string
		obj  runtime.Object
		want []string
	}{
		{"namespace finalizer", &corev1.Namespace{ObjectMeta: om("ns"), Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{"kubernetes", "custom"}}},
			[]string{`spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified`}},
		{"node taints", &corev1.Node{ObjectMeta: om("n"), Spec: corev1.NodeSpec{Taints: []corev1.Taint{
			{Key: "a", Effect: "NoSchedule"}, {Key: "a", Effect: "NoSchedule"}, {Key: "b", Effect: "Never"},
		}}}, []string{
			`metadata.taints[1]: Duplicate value: {"Key":"a","Value":"","Effect":"NoSchedule","TimeAdded":null}: taints must be unique by key and effect pair`,
			`metadata.taints[2].effect: Unsupported value: "Never": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
		}},
		{"node pod CIDR", &corev1.Node{ObjectMeta: om("n"), Spec: corev1.NodeSpec{PodCIDRs: []string{"10.0.0.0/33"}}},
			[]string{`spec.podCIDRs[0]: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`}},
		{"pv without source", defaulted(&corev1.PersistentVolume{ObjectMeta: om("pv"), Spec: corev1.PersistentVolumeSpec{Capacity: cap, AccessModes: []corev1.PersistentVolumeAccessMode{"ReadWriteOnce"}}}),
			[]string{`spec: Required value: must specify a volume type`}},
		{"pv valid", defaulted(&corev1.PersistentVolume{ObjectMeta: om("pv"), Spec: corev1.PersistentVolumeSpec{Capacity: cap, AccessModes: []corev1.PersistentVolumeAccessMode{"ReadWriteOnce"},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data"}}}}), nil},
		{"pvc without storage", defaulted(&corev1.PersistentVolumeClaim{ObjectMeta: omNS("c", "ns")}),
			[]string{`spec.accessModes: Required value: at least 1 access mode is required`, `spec.resources[storage]: Required value`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectErrors(t, Create(tc.obj), tc.want)
		})
	}

	oldNode := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", ResourceVersion: "1"}, Spec: corev1.NodeSpec{PodCIDRs: []string{"10.0.0.0/24"}, ProviderID: "aws://1"}}
	n := oldNode.DeepCopy()
	n.Spec.PodCIDRs = []string{"10.0.1.0/24"}
	n.Spec.ProviderID = "aws://2"
	expectErrors(t, Update(n, oldNode), []string{
		`spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid`,
		`spec.providerID: Forbidden: node updates may not change providerID except from "" to valid`,
	})
}

func TestEvents(t *testing.T) {
	now := metav1.NowMicro()
	tests := []struct {
		name string
		obj  *corev1.Event
		want []string
	}{
		{"namespace mismatch", &corev1.Event{ObjectMeta: omNS("e", "ns"), InvolvedObject: corev1.ObjectReference{Namespace: "other"}},
			[]string{`involvedObject.namespace: Invalid value: "other": does not match event.namespace`}},
		{"new-style event needs reporting fields", &corev1.Event{ObjectMeta: omNS("e", "default"), EventTime: now},
			[]string{
				`reportingController: Required value`,
				`reportingController: Invalid value: "": name part must be non-empty`,
				`reportingController: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
				`reportingInstance: Required value`,
				`action: Required value`,
				`reason: Required value`,
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			expectErrors(t, Create(tc.obj), tc.want)
		})
	}
}

func TestPersistentVolumeClaimUpdate(t *testing.T) {
	gi := func(s string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(s)}
	}
	old := defaulted(&corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", ResourceVersion: "1"},
		Spec:       corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{"ReadWriteOnce"}, Resources: corev1.VolumeResourceRequirements{Requests: gi("2Gi")}},
	})
	old.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, Capacity: gi("2Gi")}

	grow := old.DeepCopy()
	grow.Spec.Resources.Requests = gi("5Gi")
	expectErrors(t, Update(grow, old), nil)

	shrink := old.DeepCopy()
	shrink.Spec.Resources.Requests = gi("1Gi")
	expectErrors(t, Update(shrink, old), []string{`spec.resources.requests.storage: Forbidden: field can not be less than status.capacity`})

	modes := old.DeepCopy()
	modes.Spec.AccessModes = []corev1.PersistentVolumeAccessMode{"ReadWriteMany"}
	errs := Update(modes, old)
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), "spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n") {
		t.Errorf("got %v", errs)
	}
}

func TestExternalNameService(t *testing.T) {
	s := defaulted(&corev1.Service{ObjectMeta: omNS("ext", "ns"), Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeExternalName, ExternalName: "db.example.com.", ClusterIP: "10.0.0.1",
		IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
	}})
	expectErrors(t, Create(s), []string{
		`spec.clusterIPs: Forbidden: may not be set for ExternalName services`,
		`spec.ipFamilies: Forbidden: may not be set for ExternalName services`,
	})
}
