package node

import (
	corev1 "k8s.io/api/core/v1"
)

// ref names an object a pod uses, in the pod's namespace.
type ref struct {
	kind kind
	name string
}

// isMirror reports whether the kubelet made the pod from a static
// manifest. A node can create mirror pods, so they must never grant it
// anything: they get the pod -> node edge and nothing else.
func isMirror(pod *corev1.Pod) bool {
	_, ok := pod.Annotations[corev1.MirrorPodAnnotationKey]
	return ok
}

// podRefs appends the objects a pod uses to dst, as kube-apiserver's node
// graph counts them: its service account; secrets of image pulls,
// environment (init, regular and ephemeral containers), and volumes of
// every type that names one; config maps of environment and volumes;
// claims of persistent and ephemeral volumes; resource claims. References
// through other objects (pvc -> pv -> secret) are the pv's edges, not the
// pod's. Empty names are skipped.
func podRefs(dst []ref, pod *corev1.Pod) []ref {
	add := func(k kind, name string) {
		if name != "" {
			dst = append(dst, ref{k, name})
		}
	}
	spec := &pod.Spec
	add(kindServiceAccount, spec.ServiceAccountName)
	for _, s := range spec.ImagePullSecrets {
		add(kindSecret, s.Name)
	}
	container := func(c *corev1.Container) {
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil {
				add(kindSecret, e.SecretRef.Name)
			}
			if e.ConfigMapRef != nil {
				add(kindConfigMap, e.ConfigMapRef.Name)
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				continue
			}
			if e.ValueFrom.SecretKeyRef != nil {
				add(kindSecret, e.ValueFrom.SecretKeyRef.Name)
			}
			if e.ValueFrom.ConfigMapKeyRef != nil {
				add(kindConfigMap, e.ValueFrom.ConfigMapKeyRef.Name)
			}
		}
	}
	for i := range spec.InitContainers {
		container(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		container(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		container((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	for i := range spec.Volumes {
		v := &spec.Volumes[i]
		switch s := &v.VolumeSource; {
		case s.Secret != nil:
			add(kindSecret, s.Secret.SecretName)
		case s.ConfigMap != nil:
			add(kindConfigMap, s.ConfigMap.Name)
		case s.Projected != nil:
			for _, p := range s.Projected.Sources {
				if p.Secret != nil {
					add(kindSecret, p.Secret.Name)
				}
				if p.ConfigMap != nil {
					add(kindConfigMap, p.ConfigMap.Name)
				}
			}
		case s.PersistentVolumeClaim != nil:
			add(kindPVC, s.PersistentVolumeClaim.ClaimName)
		case s.Ephemeral != nil:
			add(kindPVC, ephemeralClaimName(pod, v))
		case s.CSI != nil:
			if s.CSI.NodePublishSecretRef != nil {
				add(kindSecret, s.CSI.NodePublishSecretRef.Name)
			}
		case s.AzureFile != nil:
			add(kindSecret, s.AzureFile.SecretName)
		case s.CephFS != nil:
			if s.CephFS.SecretRef != nil {
				add(kindSecret, s.CephFS.SecretRef.Name)
			}
		case s.Cinder != nil:
			if s.Cinder.SecretRef != nil {
				add(kindSecret, s.Cinder.SecretRef.Name)
			}
		case s.FlexVolume != nil:
			if s.FlexVolume.SecretRef != nil {
				add(kindSecret, s.FlexVolume.SecretRef.Name)
			}
		case s.RBD != nil:
			if s.RBD.SecretRef != nil {
				add(kindSecret, s.RBD.SecretRef.Name)
			}
		case s.ScaleIO != nil:
			if s.ScaleIO.SecretRef != nil {
				add(kindSecret, s.ScaleIO.SecretRef.Name)
			}
		case s.ISCSI != nil:
			if s.ISCSI.SecretRef != nil {
				add(kindSecret, s.ISCSI.SecretRef.Name)
			}
		case s.StorageOS != nil:
			if s.StorageOS.SecretRef != nil {
				add(kindSecret, s.StorageOS.SecretRef.Name)
			}
		}
	}
	for i := range spec.ResourceClaims {
		add(kindResourceClaim, resourceClaimName(pod, &spec.ResourceClaims[i]))
	}
	if st := pod.Status.ExtendedResourceClaimStatus; st != nil {
		add(kindResourceClaim, st.ResourceClaimName)
	}
	return dst
}

// ephemeralClaimName is the name of the claim made for an ephemeral
// volume: the pod's name and the volume's, joined by a dash.
func ephemeralClaimName(pod *corev1.Pod, v *corev1.Volume) string {
	return pod.Name + "-" + v.Name
}

// resourceClaimName is the ResourceClaim a pod's claim entry stands for:
// the named claim, or the one generated from a template as recorded in the
// pod's status; "" while it has not been generated, or when none was
// needed.
func resourceClaimName(pod *corev1.Pod, c *corev1.PodResourceClaim) string {
	switch {
	case c.ResourceClaimName != nil:
		return *c.ResourceClaimName
	case c.ResourceClaimTemplateName != nil:
		for _, st := range pod.Status.ResourceClaimStatuses {
			if st.Name == c.Name && st.ResourceClaimName != nil {
				return *st.ResourceClaimName
			}
		}
	}
	return ""
}

// pvSecrets calls add with the namespace and name of every secret a bound
// persistent volume names that the kubelet reads (a CSI driver's node
// stage, publish and expand secrets, not its controller secrets). Old
// volume types without a secret namespace use the claim's, as
// kube-apiserver does for objects persisted before the field existed.
func pvSecrets(pv *corev1.PersistentVolume, add func(namespace, name string)) {
	claimNS := ""
	if pv.Spec.ClaimRef != nil {
		claimNS = pv.Spec.ClaimRef.Namespace
	}
	visit := func(namespace, name string) {
		if name != "" {
			add(namespace, name)
		}
	}
	orClaim := func(namespace string) string {
		if namespace != "" {
			return namespace
		}
		return claimNS
	}
	switch s := &pv.Spec.PersistentVolumeSource; {
	case s.AzureFile != nil:
		ns := claimNS
		if s.AzureFile.SecretNamespace != nil && *s.AzureFile.SecretNamespace != "" {
			ns = *s.AzureFile.SecretNamespace
		}
		visit(ns, s.AzureFile.SecretName)
	case s.CephFS != nil:
		if r := s.CephFS.SecretRef; r != nil {
			visit(orClaim(r.Namespace), r.Name)
		}
	case s.Cinder != nil:
		if r := s.Cinder.SecretRef; r != nil {
			visit(r.Namespace, r.Name)
		}
	case s.FlexVolume != nil:
		if r := s.FlexVolume.SecretRef; r != nil {
			visit(orClaim(r.Namespace), r.Name)
		}
	case s.RBD != nil:
		if r := s.RBD.SecretRef; r != nil {
			visit(orClaim(r.Namespace), r.Name)
		}
	case s.ScaleIO != nil:
		if r := s.ScaleIO.SecretRef; r != nil {
			visit(orClaim(r.Namespace), r.Name)
		}
	case s.ISCSI != nil:
		if r := s.ISCSI.SecretRef; r != nil {
			visit(orClaim(r.Namespace), r.Name)
		}
	case s.StorageOS != nil:
		if r := s.StorageOS.SecretRef; r != nil {
			visit(r.Namespace, r.Name)
		}
	case s.CSI != nil:
		for _, r := range []*corev1.SecretReference{s.CSI.NodeStageSecretRef, s.CSI.NodePublishSecretRef, s.CSI.NodeExpandSecretRef} {
			if r != nil {
				visit(r.Namespace, r.Name)
			}
		}
	}
}
