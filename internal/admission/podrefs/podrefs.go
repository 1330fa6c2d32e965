package podrefs

import corev1 "k8s.io/api/core/v1"

// VolumeSecret is the name of the secret a volume references, if any.
// Like kube-apiserver, it looks only at the first source a volume sets.
func VolumeSecret(s *corev1.VolumeSource) string {
	ref := func(r *corev1.LocalObjectReference) string {
		if r == nil {
			return ""
		}
		return r.Name
	}
	switch {
	case s.AzureFile != nil:
		return s.AzureFile.SecretName
	case s.CephFS != nil:
		return ref(s.CephFS.SecretRef)
	case s.Cinder != nil:
		return ref(s.Cinder.SecretRef)
	case s.FlexVolume != nil:
		return ref(s.FlexVolume.SecretRef)
	case s.Projected != nil:
		for _, src := range s.Projected.Sources {
			if src.Secret != nil && src.Secret.Name != "" {
				return src.Secret.Name
			}
		}
	case s.RBD != nil:
		return ref(s.RBD.SecretRef)
	case s.Secret != nil:
		return s.Secret.SecretName
	case s.ScaleIO != nil:
		return ref(s.ScaleIO.SecretRef)
	case s.ISCSI != nil:
		return ref(s.ISCSI.SecretRef)
	case s.StorageOS != nil:
		return ref(s.StorageOS.SecretRef)
	case s.CSI != nil:
		return ref(s.CSI.NodePublishSecretRef)
	}
	return ""
}
