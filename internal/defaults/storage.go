package defaults

import (
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

func storageClass(sc *storagev1.StorageClass) {
	if sc.ReclaimPolicy == nil {
		sc.ReclaimPolicy = ptr(corev1.PersistentVolumeReclaimDelete)
	}
	if sc.VolumeBindingMode == nil {
		sc.VolumeBindingMode = ptr(storagev1.VolumeBindingImmediate)
	}
}

func csiDriver(d *storagev1.CSIDriver) {
	s := &d.Spec
	if s.AttachRequired == nil {
		s.AttachRequired = ptr(true)
	}
	if s.PodInfoOnMount == nil {
		s.PodInfoOnMount = ptr(false)
	}
	if s.StorageCapacity == nil {
		s.StorageCapacity = ptr(false)
	}
	if s.FSGroupPolicy == nil {
		s.FSGroupPolicy = ptr(storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)
	}
	if len(s.VolumeLifecycleModes) == 0 {
		s.VolumeLifecycleModes = []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent}
	}
	if s.RequiresRepublish == nil {
		s.RequiresRepublish = ptr(false)
	}
	if s.SELinuxMount == nil {
		s.SELinuxMount = ptr(false)
	}
}

func csr(c *certificatesv1.CertificateSigningRequest) {
	if c.Spec.Usages == nil {
		c.Spec.Usages = []certificatesv1.KeyUsage{certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment}
	}
	for i := range c.Status.Conditions {
		if c.Status.Conditions[i].Status == "" {
			c.Status.Conditions[i].Status = corev1.ConditionTrue
		}
	}
}
