package noderestriction

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/portcullis/portcullis/internal/admission/podrefs"
)

// apiObjectReference reports whether a pod references an API object, and
// which resource, in kube-apiserver's words ("secrets (via secret
// volumes)"); a volume or projection of a kind it does not know is an
// error, since it might reference one.
func apiObjectReference(pod *corev1.Pod) (bool, string, error) {
	spec := &pod.Spec
	if spec.ServiceAccountName != "" {
		return true, "serviceaccounts", nil
	}
	if referencesSecret(spec) {
		return true, "secrets", nil
	}
	if referencesConfigMap(spec) {
		return true, "configmaps", nil
	}
	if len(spec.ResourceClaims) > 0 {
		return true, "resourceclaims", nil
	}
	for i := range spec.Volumes {
		v := &spec.Volumes[i]
		s := &v.VolumeSource
		switch {
		case s.AWSElasticBlockStore != nil, s.AzureDisk != nil, s.CephFS != nil, s.Cinder != nil,
			s.DownwardAPI != nil, s.EmptyDir != nil, s.FC != nil, s.FlexVolume != nil, s.Flocker != nil,
			s.GCEPersistentDisk != nil, s.GitRepo != nil, s.HostPath != nil, s.Image != nil, s.ISCSI != nil,
			s.NFS != nil, s.PhotonPersistentDisk != nil, s.PortworxVolume != nil, s.Quobyte != nil, s.RBD != nil,
			s.ScaleIO != nil, s.StorageOS != nil, s.VsphereVolume != nil:
			// Local to the node, or a secret reference already found above.
			continue
		case s.ConfigMap != nil:
			return true, "configmaps (via configmap volumes)", nil
		case s.Secret != nil:
			return true, "secrets (via secret volumes)", nil
		case s.CSI != nil:
			return true, "csidrivers (via CSI volumes)", nil
		case s.Glusterfs != nil:
			return true, "endpoints (via glusterFS volumes)", nil
		case s.PersistentVolumeClaim != nil:
			return true, "persistentvolumeclaims", nil
		case s.Ephemeral != nil:
			return true, "persistentvolumeclaims (via ephemeral volumes)", nil
		case s.AzureFile != nil:
			return true, "secrets (via azureFile volumes)", nil
		case s.Projected != nil:
			for _, src := range s.Projected.Sources {
				switch {
				case src.ConfigMap != nil:
					return true, "configmaps (via projected volumes)", nil
				case src.Secret != nil:
					return true, "secrets (via projected volumes)", nil
				case src.ServiceAccountToken != nil:
					return true, "serviceaccounts (via projected volumes)", nil
				case src.ClusterTrustBundle != nil:
					return true, "clustertrustbundles", nil
				case src.PodCertificate != nil:
					return true, "podcertificates", nil
				case src.DownwardAPI != nil:
					continue
				default:
					return true, "", fmt.Errorf("unknown source for projected volume %q", v.Name)
				}
			}
		default:
			// kube-apiserver's words, two spaces included.
			return true, "", fmt.Errorf("unknown volume type for volume  %q", v.Name)
		}
	}
	return false, "", nil
}

// referencesSecret reports whether the pod names a secret: image pull
// secrets, any container's environment, or a volume's secret reference.
// Empty names do not count.
func referencesSecret(spec *corev1.PodSpec) bool {
	for _, r := range spec.ImagePullSecrets {
		if r.Name != "" {
			return true
		}
	}
	found := false
	eachContainer(spec, func(env []corev1.EnvVar, from []corev1.EnvFromSource) {
		for _, f := range from {
			if f.SecretRef != nil && f.SecretRef.Name != "" {
				found = true
			}
		}
		for _, e := range env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name != "" {
				found = true
			}
		}
	})
	if found {
		return true
	}
	for i := range spec.Volumes {
		if podrefs.VolumeSecret(&spec.Volumes[i].VolumeSource) != "" {
			return true
		}
	}
	return false
}

// referencesConfigMap reports whether the pod names a config map in any
// container's environment or in a volume. Empty names do not count.
func referencesConfigMap(spec *corev1.PodSpec) bool {
	found := false
	eachContainer(spec, func(env []corev1.EnvVar, from []corev1.EnvFromSource) {
		for _, f := range from {
			if f.ConfigMapRef != nil && f.ConfigMapRef.Name != "" {
				found = true
			}
		}
		for _, e := range env {
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil && e.ValueFrom.ConfigMapKeyRef.Name != "" {
				found = true
			}
		}
	})
	if found {
		return true
	}
	for i := range spec.Volumes {
		s := &spec.Volumes[i].VolumeSource
		switch {
		case s.Projected != nil:
			for _, src := range s.Projected.Sources {
				if src.ConfigMap != nil && src.ConfigMap.Name != "" {
					return true
				}
			}
		case s.ConfigMap != nil:
			if s.ConfigMap.Name != "" {
				return true
			}
		}
	}
	return false
}

// eachContainer calls f with the environment of every init, regular and
// ephemeral container.
func eachContainer(spec *corev1.PodSpec, f func(env []corev1.EnvVar, from []corev1.EnvFromSource)) {
	for i := range spec.InitContainers {
		f(spec.InitContainers[i].Env, spec.InitContainers[i].EnvFrom)
	}
	for i := range spec.Containers {
		f(spec.Containers[i].Env, spec.Containers[i].EnvFrom)
	}
	for i := range spec.EphemeralContainers {
		f(spec.EphemeralContainers[i].Env, spec.EphemeralContainers[i].EnvFrom)
	}
}
