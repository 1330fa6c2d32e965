package printers

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func running(ready bool, restarts int32) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name: "app", Ready: ready, RestartCount: restarts,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ago(time.Hour)}},
	}
}

func waiting(reason string, restarts int32) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name: "app", RestartCount: restarts,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}},
	}
}

func terminated(reason string, exitCode, signal int32) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name:  "app",
		State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: reason, ExitCode: exitCode, Signal: signal}},
	}
}

func withLastTermination(s corev1.ContainerStatus, finished time.Duration) corev1.ContainerStatus {
	s.LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1, FinishedAt: ago(finished)}
	return s
}

func pod(name string, phase corev1.PodPhase, mutate func(*corev1.Pod)) corev1.Pod {
	p := corev1.Pod{
		ObjectMeta: objectMeta(name, 3*time.Hour),
		Spec:       corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "app", Image: "nginx"}}},
		Status:     corev1.PodStatus{Phase: phase},
	}
	if mutate != nil {
		mutate(&p)
	}
	return p
}

func podCases() []corev1.Pod {
	always := ptr(corev1.ContainerRestartPolicyAlways)
	deleted := ptr(ago(time.Minute))
	return []corev1.Pod{
		pod("running", corev1.PodRunning, func(p *corev1.Pod) {
			p.Status.PodIP, p.Status.PodIPs = "10.0.0.5", []corev1.PodIP{{IP: "10.0.0.5"}, {IP: "fd00::5"}}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running(true, 0)}
		}),
		pod("pending-unscheduled", corev1.PodPending, func(p *corev1.Pod) { p.Spec.NodeName = "" }),
		pod("container-creating", corev1.PodPending, func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{waiting("ContainerCreating", 0)}
		}),
		pod("completed", corev1.PodSucceeded, func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("Completed", 0, 0)}
		}),
		pod("evicted", corev1.PodFailed, func(p *corev1.Pod) { p.Status.Reason = "Evicted" }),
		pod("crashloop", corev1.PodRunning, func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{withLastTermination(waiting("CrashLoopBackOff", 5), 2*time.Minute)}
		}),
		pod("oomkilled", corev1.PodRunning, func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("OOMKilled", 137, 0)}
		}),
		pod("exit-code", corev1.PodFailed, func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("", 3, 0)}
		}),
		pod("signal", corev1.PodFailed, func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("", 0, 9)}
		}),
		pod("terminating", corev1.PodRunning, func(p *corev1.Pod) {
			p.DeletionTimestamp = deleted
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running(true, 0)}
		}),
		pod("terminating-succeeded", corev1.PodSucceeded, func(p *corev1.Pod) {
			p.DeletionTimestamp = deleted
			p.Status.ContainerStatuses = []corev1.ContainerStatus{terminated("Completed", 0, 0)}
		}),
		pod("node-lost", corev1.PodRunning, func(p *corev1.Pod) {
			p.DeletionTimestamp = deleted
			p.Status.Reason = "NodeLost"
		}),
		pod("scheduling-gated", corev1.PodPending, func(p *corev1.Pod) {
			p.Spec.NodeName = ""
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated}}
		}),
		pod("init-running", corev1.PodPending, func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "init"}}
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{running(false, 0)}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{waiting("PodInitializing", 0)}
		}),
		pod("init-second-of-two", corev1.PodPending, func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "a"}, {Name: "b"}}
			first := terminated("Completed", 0, 0)
			first.Name = "a"
			second := waiting("PodInitializing", 0)
			second.Name = "b"
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{first, second}
		}),
		pod("init-crashloop", corev1.PodPending, func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "app"}}
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{withLastTermination(waiting("CrashLoopBackOff", 4), 30*time.Second)}
		}),
		pod("init-exit-code", corev1.PodPending, func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "app"}}
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{terminated("", 1, 0)}
		}),
		pod("init-signal", corev1.PodPending, func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "app"}}
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{terminated("", 143, 15)}
		}),
		pod("init-error", corev1.PodFailed, func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "app"}}
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{terminated("Error", 2, 0)}
		}),
		pod("sidecar", corev1.PodRunning, func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "proxy", RestartPolicy: always}}
			sidecar := withLastTermination(running(true, 2), 10*time.Minute)
			sidecar.Name, sidecar.Started = "proxy", ptr(true)
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{sidecar}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{withLastTermination(running(true, 1), time.Hour)}
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodInitialized, Status: corev1.ConditionTrue}}
		}),
		pod("sidecar-starting", corev1.PodPending, func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "proxy", RestartPolicy: always}, {Name: "setup"}}
			sidecar := running(false, 0)
			sidecar.Name, sidecar.Started = "proxy", ptr(false)
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{sidecar}
		}),
		pod("completed-beside-running", corev1.PodRunning, func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "job"})
			done := terminated("Completed", 0, 0)
			done.Name = "job"
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running(true, 0), done}
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		}),
		pod("completed-beside-not-ready", corev1.PodRunning, func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "job"})
			done := terminated("Completed", 0, 0)
			done.Name = "job"
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running(true, 0), done}
		}),
		pod("readiness-gates", corev1.PodRunning, func(p *corev1.Pod) {
			p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "example.com/lb"}, {ConditionType: "example.com/dns"}}
			p.Status.NominatedNodeName = "node-2"
			p.Status.PodIPs = []corev1.PodIP{{IP: "10.0.0.9"}}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{running(false, 0)}
			p.Status.Conditions = []corev1.PodCondition{{Type: "example.com/lb", Status: corev1.ConditionTrue}}
		}),
	}
}

func coreCases() []goldenCase {
	return []goldenCase{
		{name: "pods", obj: &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "42"}, Items: podCases()}},
		{name: "nodes", obj: &corev1.NodeList{Items: []corev1.Node{
			{
				ObjectMeta: metav1.ObjectMeta{Name: "cp-1", CreationTimestamp: ago(400 * 24 * time.Hour), Labels: map[string]string{
					"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/etcd": "true", "kubernetes.io/role": "master",
				}},
				Status: corev1.NodeStatus{
					Conditions: []corev1.NodeCondition{{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse}, {Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
					Addresses:  []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: "cp-1"}, {Type: corev1.NodeInternalIP, Address: "192.168.1.10"}, {Type: corev1.NodeExternalIP, Address: "203.0.113.7"}},
					NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "v1.37.2", OSImage: "Debian GNU/Linux 13", KernelVersion: "6.12.0", ContainerRuntimeVersion: "containerd://2.1.0"},
				},
			},
			{
				ObjectMeta: metav1.ObjectMeta{Name: "worker-cordoned", CreationTimestamp: ago(36 * time.Hour)},
				Spec:       corev1.NodeSpec{Unschedulable: true},
				Status: corev1.NodeStatus{
					Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
					Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "192.168.1.11"}},
					NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "v1.37.2"},
				},
			},
			{
				ObjectMeta: metav1.ObjectMeta{Name: "worker-down", CreationTimestamp: ago(90 * time.Second)},
				Status:     corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionUnknown}}},
			},
			{ObjectMeta: metav1.ObjectMeta{Name: "registering", CreationTimestamp: ago(5 * time.Second)}, Spec: corev1.NodeSpec{Unschedulable: true}},
		}}},
		{name: "namespaces", obj: &corev1.NamespaceList{Items: []corev1.Namespace{
			{ObjectMeta: metav1.ObjectMeta{Name: "default", CreationTimestamp: ago(30 * 24 * time.Hour)}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}},
			{ObjectMeta: metav1.ObjectMeta{Name: "leaving", CreationTimestamp: ago(3 * time.Minute)}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}},
		}}},
		{name: "configmaps", obj: &corev1.ConfigMapList{Items: []corev1.ConfigMap{
			{ObjectMeta: objectMeta("kube-root-ca.crt", time.Hour), Data: map[string]string{"ca.crt": "..."}},
			{ObjectMeta: objectMeta("mixed", 2*time.Hour), Data: map[string]string{"a": "1", "b": "2"}, BinaryData: map[string][]byte{"c": {3}}},
			{ObjectMeta: objectMeta("empty", 3*time.Hour)},
		}}},
		{name: "secrets", obj: &corev1.SecretList{Items: []corev1.Secret{
			{ObjectMeta: objectMeta("tls", time.Hour), Type: corev1.SecretTypeTLS, Data: map[string][]byte{"tls.crt": nil, "tls.key": nil}},
			{ObjectMeta: objectMeta("opaque", time.Hour), Type: corev1.SecretTypeOpaque},
		}}},
		{name: "serviceaccounts", obj: &corev1.ServiceAccountList{Items: []corev1.ServiceAccount{
			{ObjectMeta: objectMeta("default", 10*24*time.Hour)},
			{ObjectMeta: objectMeta("legacy", 10*24*time.Hour), Secrets: []corev1.ObjectReference{{Name: "legacy-token"}}},
		}}},
		{name: "services", obj: &corev1.ServiceList{Items: serviceCases()}},
		{name: "endpoints", obj: &corev1.EndpointsList{Items: []corev1.Endpoints{
			{ObjectMeta: objectMeta("empty", time.Hour)},
			{ObjectMeta: objectMeta("web", time.Hour), Subsets: []corev1.EndpointSubset{{
				Addresses: []corev1.EndpointAddress{{IP: "10.0.0.1"}, {IP: "10.0.0.2"}, {IP: "fd00::3"}},
				Ports:     []corev1.EndpointPort{{Name: "http", Port: 80}, {Name: "https", Port: 443}},
			}}},
			{ObjectMeta: objectMeta("headless", time.Hour), Subsets: []corev1.EndpointSubset{{
				Addresses: []corev1.EndpointAddress{{IP: "10.0.0.1"}, {IP: "10.0.0.2"}},
			}}},
		}}},
		{name: "events", obj: &corev1.EventList{Items: []corev1.Event{
			{
				ObjectMeta:     objectMeta("web.1", time.Hour),
				InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web", FieldPath: "spec.containers{app}"},
				Reason:         "BackOff", Type: corev1.EventTypeWarning, Message: "Back-off restarting failed container\n",
				Source:         corev1.EventSource{Component: "kubelet", Host: "node-1"},
				FirstTimestamp: ago(time.Hour), LastTimestamp: ago(2 * time.Minute), Count: 12,
			},
			{
				ObjectMeta:     objectMeta("web.2", time.Minute),
				InvolvedObject: corev1.ObjectReference{Kind: "Deployment", Name: "web"},
				Reason:         "ScalingReplicaSet", Type: corev1.EventTypeNormal, Message: "Scaled up",
				EventTime: agoMicro(time.Minute), ReportingController: "deployment-controller",
			},
			{
				ObjectMeta:     objectMeta("web.3", time.Hour),
				InvolvedObject: corev1.ObjectReference{Kind: "Node"},
				Reason:         "Rebooted", Type: corev1.EventTypeWarning,
				EventTime: agoMicro(time.Hour), ReportingController: "kubelet", ReportingInstance: "node-1",
				Series: &corev1.EventSeries{Count: 4, LastObservedTime: agoMicro(5 * time.Minute)},
			},
		}}},
		{name: "events-k8s-io", obj: &eventsv1.EventList{Items: []eventsv1.Event{
			{
				ObjectMeta: objectMeta("web.1", time.Hour),
				Regarding:  corev1.ObjectReference{Kind: "Pod", Name: "web"},
				Reason:     "Pulled", Type: corev1.EventTypeNormal, Note: "Image pulled",
				EventTime: agoMicro(time.Hour), ReportingController: "kubelet", ReportingInstance: "node-1",
				Series: &eventsv1.EventSeries{Count: 3, LastObservedTime: agoMicro(time.Minute)},
			},
			{
				ObjectMeta: objectMeta("web.2", time.Hour),
				Regarding:  corev1.ObjectReference{Kind: "Pod", Name: "web"},
				Reason:     "Killing", Type: corev1.EventTypeNormal, Note: "Stopping container",
				DeprecatedSource:         corev1.EventSource{Component: "kubelet"},
				DeprecatedFirstTimestamp: ago(time.Hour), DeprecatedLastTimestamp: ago(30 * time.Minute), DeprecatedCount: 2,
			},
		}}},
		{name: "persistentvolumes", obj: &corev1.PersistentVolumeList{Items: []corev1.PersistentVolume{
			{
				ObjectMeta: metav1.ObjectMeta{Name: "pv-bound", CreationTimestamp: ago(time.Hour)},
				Spec: corev1.PersistentVolumeSpec{
					Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
					AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOncePod, corev1.ReadWriteOnce, corev1.ReadOnlyMany, corev1.ReadWriteOnce},
					PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
					ClaimRef:                      &corev1.ObjectReference{Namespace: "default", Name: "data"},
					StorageClassName:              "fast",
					VolumeMode:                    ptr(corev1.PersistentVolumeFilesystem),
					VolumeAttributesClassName:     ptr("gold"),
				},
				Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound},
			},
			{
				ObjectMeta: metav1.ObjectMeta{Name: "pv-failed", CreationTimestamp: ago(time.Hour), DeletionTimestamp: ptr(ago(time.Second)),
					Annotations: map[string]string{"volume.beta.kubernetes.io/storage-class": "legacy"}},
				Spec:   corev1.PersistentVolumeSpec{StorageClassName: "ignored"},
				Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeFailed, Reason: "RecyclerFailed"},
			},
		}}},
		{name: "persistentvolumeclaims", obj: &corev1.PersistentVolumeClaimList{Items: []corev1.PersistentVolumeClaim{
			{
				ObjectMeta: objectMeta("data", time.Hour),
				Spec: corev1.PersistentVolumeClaimSpec{
					VolumeName: "pv-bound", StorageClassName: ptr("fast"), VolumeMode: ptr(corev1.PersistentVolumeBlock),
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("5Gi")}},
				},
				Status: corev1.PersistentVolumeClaimStatus{
					Phase:       corev1.ClaimBound,
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
				},
			},
			{
				ObjectMeta: objectMeta("waiting", time.Minute),
				Spec: corev1.PersistentVolumeClaimSpec{
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
				},
				Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
			},
		}}},
		{name: "limitranges", obj: &corev1.LimitRangeList{Items: []corev1.LimitRange{{ObjectMeta: objectMeta("limits", time.Hour)}}}},
		{name: "resourcequotas", obj: &corev1.ResourceQuotaList{Items: []corev1.ResourceQuota{{
			ObjectMeta: objectMeta("compute", time.Hour),
			Status: corev1.ResourceQuotaStatus{
				Hard: corev1.ResourceList{"requests.cpu": resource.MustParse("4"), "limits.memory": resource.MustParse("8Gi"), "pods": resource.MustParse("10"), "limits.cpu": resource.MustParse("8")},
				Used: corev1.ResourceList{"requests.cpu": resource.MustParse("500m"), "pods": resource.MustParse("3")},
			},
		}}}},
	}
}

func serviceCases() []corev1.Service {
	tcp := corev1.ProtocolTCP
	return []corev1.Service{
		{
			ObjectMeta: objectMeta("web", time.Hour),
			Spec: corev1.ServiceSpec{
				Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.10", ClusterIPs: []string{"10.96.0.10", "fd00::10"},
				Ports:    []corev1.ServicePort{{Port: 80, Protocol: tcp}, {Port: 53, Protocol: corev1.ProtocolUDP}},
				Selector: map[string]string{"app": "web", "tier": "front"},
			},
		},
		{ObjectMeta: objectMeta("headless", time.Hour), Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "None"}},
		{
			ObjectMeta: objectMeta("nodeport", time.Hour),
			Spec: corev1.ServiceSpec{
				Type: corev1.ServiceTypeNodePort, ClusterIPs: []string{"10.96.0.11"}, ExternalIPs: []string{"198.51.100.1"},
				Ports: []corev1.ServicePort{{Port: 443, NodePort: 30443, Protocol: tcp}},
			},
		},
		{
			ObjectMeta: objectMeta("lb-pending", time.Hour),
			Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, ClusterIP: "10.96.0.12", Ports: []corev1.ServicePort{{Port: 80, NodePort: 31080, Protocol: tcp}}},
		},
		{
			ObjectMeta: objectMeta("lb-ready", time.Hour),
			Spec: corev1.ServiceSpec{
				Type: corev1.ServiceTypeLoadBalancer, ClusterIP: "10.96.0.13", ExternalIPs: []string{"198.51.100.2"},
				Ports: []corev1.ServicePort{{Port: 80, NodePort: 31081, Protocol: tcp}},
			},
			Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{
				{Hostname: "lb.example.com"}, {IP: "203.0.113.9"}, {IP: "203.0.113.9"},
			}}},
		},
		{ObjectMeta: objectMeta("external", time.Hour), Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "db.example.com"}},
	}
}
