package printers

import (
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func coreVolumePrinters() []registration {
	return []registration{
		cellsPrinter(persistentVolumeColumns, persistentVolumeCells),
		cellsPrinter(persistentVolumeClaimColumns, persistentVolumeClaimCells),
	}
}

var (
	pvSpecDoc    = corev1.PersistentVolumeSpec{}.SwaggerDoc()
	pvStatusDoc  = corev1.PersistentVolumeStatus{}.SwaggerDoc()
	pvcSpecDoc   = corev1.PersistentVolumeClaimSpec{}.SwaggerDoc()
	pvcStatusDoc = corev1.PersistentVolumeClaimStatus{}.SwaggerDoc()
)

var persistentVolumeColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Capacity", "string", pvSpecDoc["capacity"]),
	column("Access Modes", "string", pvSpecDoc["accessModes"]),
	column("Reclaim Policy", "string", pvSpecDoc["persistentVolumeReclaimPolicy"]),
	column("Status", "string", pvStatusDoc["phase"]),
	column("Claim", "string", pvSpecDoc["claimRef"]),
	column("StorageClass", "string", "The storage class of the volume."),
	column("VolumeAttributesClass", "string", "The volume attributes class of the volume."),
	column("Reason", "string", pvStatusDoc["reason"]),
	ageColumn(),
	wideColumn("VolumeMode", "string", pvSpecDoc["volumeMode"]),
}

// betaStorageClassAnnotation predates spec.storageClassName and still wins
// over it.
const betaStorageClassAnnotation = "volume.beta.kubernetes.io/storage-class"

func persistentVolumeCells(pv *corev1.PersistentVolume, now time.Time) []any {
	claim := ""
	if ref := pv.Spec.ClaimRef; ref != nil {
		claim = ref.Namespace + "/" + ref.Name
	}
	phase := string(pv.Status.Phase)
	if pv.DeletionTimestamp != nil {
		phase = "Terminating"
	}
	class, ok := pv.Annotations[betaStorageClassAnnotation]
	if !ok {
		class = pv.Spec.StorageClassName
	}
	size := pv.Spec.Capacity[corev1.ResourceStorage]
	return []any{
		pv.Name, size.String(), accessModes(pv.Spec.AccessModes), string(pv.Spec.PersistentVolumeReclaimPolicy),
		phase, claim, class, stringOr(pv.Spec.VolumeAttributesClassName, unset),
		pv.Status.Reason, since(pv.CreationTimestamp, now), volumeMode(pv.Spec.VolumeMode),
	}
}

var persistentVolumeClaimColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Status", "string", pvcStatusDoc["phase"]),
	column("Volume", "string", pvcSpecDoc["volumeName"]),
	column("Capacity", "string", pvcStatusDoc["capacity"]),
	column("Access Modes", "string", pvcStatusDoc["accessModes"]),
	column("StorageClass", "string", "The storage class of the claim."),
	column("VolumeAttributesClass", "string", "The volume attributes class of the claim."),
	ageColumn(),
	wideColumn("VolumeMode", "string", pvcSpecDoc["volumeMode"]),
}

func persistentVolumeClaimCells(pvc *corev1.PersistentVolumeClaim, now time.Time) []any {
	phase := string(pvc.Status.Phase)
	if pvc.DeletionTimestamp != nil {
		phase = "Terminating"
	}
	// Capacity and access modes are those of the bound volume, so they stay
	// empty until the claim is bound.
	capacity, modes := "", ""
	if pvc.Spec.VolumeName != "" {
		size := pvc.Status.Capacity[corev1.ResourceStorage]
		capacity, modes = size.String(), accessModes(pvc.Status.AccessModes)
	}
	class, ok := pvc.Annotations[betaStorageClassAnnotation]
	if !ok {
		class = stringOr(pvc.Spec.StorageClassName, "")
	}
	return []any{
		pvc.Name, phase, pvc.Spec.VolumeName, capacity, modes, class,
		stringOr(pvc.Spec.VolumeAttributesClassName, unset),
		since(pvc.CreationTimestamp, now), volumeMode(pvc.Spec.VolumeMode),
	}
}

// accessModes abbreviates the modes in a fixed order: RWO,ROX,RWX,RWOP.
func accessModes(modes []corev1.PersistentVolumeAccessMode) string {
	var out []string
	for _, m := range []struct {
		mode  corev1.PersistentVolumeAccessMode
		short string
	}{
		{corev1.ReadWriteOnce, "RWO"},
		{corev1.ReadOnlyMany, "ROX"},
		{corev1.ReadWriteMany, "RWX"},
		{corev1.ReadWriteOncePod, "RWOP"},
	} {
		if slices.Contains(modes, m.mode) {
			out = append(out, m.short)
		}
	}
	return strings.Join(out, ",")
}

func volumeMode(m *corev1.PersistentVolumeMode) string {
	if m == nil {
		return unset
	}
	return string(*m)
}

// stringOr dereferences an optional string, or returns def.
func stringOr(s *string, def string) string {
	if s == nil {
		return def
	}
	return *s
}
