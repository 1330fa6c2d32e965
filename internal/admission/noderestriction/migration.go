package noderestriction

import corev1 "k8s.io/api/core/v1"

// The CSI drivers that in-tree volume plugins were migrated to (CSI
// migration): a pod using an in-tree volume of these kinds is served by
// the driver, and may need tokens for the driver's audiences.
const (
	awsEBSDriver    = "ebs.csi.aws.com"
	gcePDDriver     = "pd.csi.storage.gke.io"
	cinderDriver    = "cinder.csi.openstack.org"
	azureDiskDriver = "disk.csi.azure.com"
	azureFileDriver = "file.csi.azure.com"
	vsphereDriver   = "csi.vsphere.vmware.com"
	portworxDriver  = "pxd.portworx.com"
)

// inlineMigratedDriver is the CSI driver serving an in-tree inline volume,
// "" for a volume not migrated to CSI.
func inlineMigratedDriver(s *corev1.VolumeSource) string {
	switch {
	case s.AWSElasticBlockStore != nil:
		return awsEBSDriver
	case s.GCEPersistentDisk != nil:
		return gcePDDriver
	case s.Cinder != nil:
		return cinderDriver
	case s.AzureDisk != nil:
		return azureDiskDriver
	case s.AzureFile != nil:
		return azureFileDriver
	case s.VsphereVolume != nil:
		return vsphereDriver
	case s.PortworxVolume != nil:
		return portworxDriver
	}
	return ""
}

// persistentMigratedDriver is the CSI driver serving an in-tree persistent
// volume, "" for a volume not migrated to CSI.
func persistentMigratedDriver(s *corev1.PersistentVolumeSource) string {
	switch {
	case s.AWSElasticBlockStore != nil:
		return awsEBSDriver
	case s.GCEPersistentDisk != nil:
		return gcePDDriver
	case s.Cinder != nil:
		return cinderDriver
	case s.AzureDisk != nil:
		return azureDiskDriver
	case s.AzureFile != nil:
		return azureFileDriver
	case s.VsphereVolume != nil:
		return vsphereDriver
	case s.PortworxVolume != nil:
		return portworxDriver
	}
	return ""
}
