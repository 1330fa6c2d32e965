package serviceaccount

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// mountToken mounts the token volume in every init container and
// container that has nothing at TokenMountPath, and adds the volume when
// one of them needs it and the pod has none.
func (p *Plugin) mountToken(pd *corev1.Pod) {
	name, hasVolume := "", false
	for _, v := range pd.Spec.Volumes {
		if strings.HasPrefix(v.Name, VolumeNamePrefix) {
			name, hasVolume = v.Name, true
			break
		}
	}
	if !hasVolume {
		name = VolumeNamePrefix + p.suffix()
	}
	mount := corev1.VolumeMount{Name: name, ReadOnly: true, MountPath: TokenMountPath}
	needed := false
	for _, containers := range [][]corev1.Container{pd.Spec.InitContainers, pd.Spec.Containers} {
		for i := range containers {
			if mountsAt(containers[i].VolumeMounts, TokenMountPath) {
				continue
			}
			containers[i].VolumeMounts = append(containers[i].VolumeMounts, mount)
			needed = true
		}
	}
	if needed && !hasVolume {
		pd.Spec.Volumes = append(pd.Spec.Volumes, corev1.Volume{
			Name:         name,
			VolumeSource: corev1.VolumeSource{Projected: TokenVolumeSource()},
		})
	}
}

func mountsAt(mounts []corev1.VolumeMount, path string) bool {
	for _, m := range mounts {
		if m.MountPath == path {
			return true
		}
	}
	return false
}

// TokenVolumeSource is the projected source of the token volume, every
// field set as kube-apiserver sets it (defaultMode too: it is written out
// rather than left to defaulting).
func TokenVolumeSource() *corev1.ProjectedVolumeSource {
	return &corev1.ProjectedVolumeSource{
		DefaultMode: ptr.To(corev1.ProjectedVolumeSourceDefaultMode),
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{
				Path:              "token",
				ExpirationSeconds: ptr.To(TokenExpirationSeconds),
			}},
			{ConfigMap: &corev1.ConfigMapProjection{
				LocalObjectReference: corev1.LocalObjectReference{Name: RootCAConfigMap},
				Items:                []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}},
			}},
			{DownwardAPI: &corev1.DownwardAPIProjection{
				Items: []corev1.DownwardAPIVolumeFile{{
					Path:     "namespace",
					FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"},
				}},
			}},
		},
	}
}
