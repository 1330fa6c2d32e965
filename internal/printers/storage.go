package printers

import (
	"strings"
	"time"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// storagePrinters covers storage.k8s.io/v1.
func storagePrinters() []registration {
	return []registration{
		cellsPrinter(storageClassColumns, storageClassCells),
		cellsPrinter(csiDriverColumns, csiDriverCells),
		cellsPrinter(csiNodeColumns, csiNodeCells),
		cellsPrinter(volumeAttachmentColumns, volumeAttachmentCells),
		cellsPrinter(volumeAttributesClassColumns, volumeAttributesClassCells),
	}
}

var storageClassDoc = storagev1.StorageClass{}.SwaggerDoc()

var storageClassColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Provisioner", "string", storageClassDoc["provisioner"]),
	column("ReclaimPolicy", "string", storageClassDoc["reclaimPolicy"]),
	column("VolumeBindingMode", "string", storageClassDoc["volumeBindingMode"]),
	column("AllowVolumeExpansion", "string", storageClassDoc["allowVolumeExpansion"]),
	ageColumn(),
}

// Default-class annotations; the beta one is still honoured.
const (
	defaultStorageClassAnnotation     = "storageclass.kubernetes.io/is-default-class"
	betaDefaultStorageClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
	defaultVolumeAttributesAnnotation = "volumeattributesclass.kubernetes.io/is-default-class"
)

func storageClassCells(sc *storagev1.StorageClass, now time.Time) []any {
	name := sc.Name
	if sc.Annotations[defaultStorageClassAnnotation] == "true" || sc.Annotations[betaDefaultStorageClassAnnotation] == "true" {
		name += " (default)"
	}
	reclaim := "Delete"
	if sc.ReclaimPolicy != nil {
		reclaim = string(*sc.ReclaimPolicy)
	}
	binding := string(storagev1.VolumeBindingImmediate)
	if sc.VolumeBindingMode != nil {
		binding = string(*sc.VolumeBindingMode)
	}
	return []any{
		name, sc.Provisioner, reclaim, binding, boolOr(sc.AllowVolumeExpansion, false),
		since(sc.CreationTimestamp, now),
	}
}

var csiDriverDoc = storagev1.CSIDriverSpec{}.SwaggerDoc()

var csiDriverColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("AttachRequired", "boolean", csiDriverDoc["attachRequired"]),
	column("PodInfoOnMount", "boolean", csiDriverDoc["podInfoOnMount"]),
	column("StorageCapacity", "boolean", csiDriverDoc["storageCapacity"]),
	column("TokenRequests", "string", csiDriverDoc["tokenRequests"]),
	column("RequiresRepublish", "boolean", csiDriverDoc["requiresRepublish"]),
	column("Modes", "string", csiDriverDoc["volumeLifecycleModes"]),
	ageColumn(),
}

func csiDriverCells(d *storagev1.CSIDriver, now time.Time) []any {
	tokens := unset
	if d.Spec.TokenRequests != nil {
		audiences := make([]string, len(d.Spec.TokenRequests))
		for i, t := range d.Spec.TokenRequests {
			audiences[i] = t.Audience
		}
		tokens = strings.Join(audiences, ",")
	}
	modes := make([]string, len(d.Spec.VolumeLifecycleModes))
	for i, m := range d.Spec.VolumeLifecycleModes {
		modes[i] = string(m)
	}
	return []any{
		d.Name,
		boolOr(d.Spec.AttachRequired, true),
		boolOr(d.Spec.PodInfoOnMount, false),
		boolOr(d.Spec.StorageCapacity, false),
		tokens,
		boolOr(d.Spec.RequiresRepublish, false),
		orNone(strings.Join(modes, ",")),
		since(d.CreationTimestamp, now),
	}
}

var csiNodeColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("Drivers", "integer", "The number of CSI drivers registered on the node."),
	ageColumn(),
}

func csiNodeCells(n *storagev1.CSINode, now time.Time) []any {
	return []any{n.Name, int64(len(n.Spec.Drivers)), since(n.CreationTimestamp, now)}
}

var volumeAttachmentColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	{Name: "Attacher", Type: "string", Format: "name", Description: storagev1.VolumeAttachmentSpec{}.SwaggerDoc()["attacher"]},
	column("PV", "string", storagev1.VolumeAttachmentSource{}.SwaggerDoc()["persistentVolumeName"]),
	column("Node", "string", storagev1.VolumeAttachmentSpec{}.SwaggerDoc()["nodeName"]),
	column("Attached", "boolean", storagev1.VolumeAttachmentStatus{}.SwaggerDoc()["attached"]),
	ageColumn(),
}

func volumeAttachmentCells(va *storagev1.VolumeAttachment, now time.Time) []any {
	return []any{
		va.Name, va.Spec.Attacher, stringOr(va.Spec.Source.PersistentVolumeName, ""), va.Spec.NodeName,
		va.Status.Attached, since(va.CreationTimestamp, now),
	}
}

var volumeAttributesClassColumns = []metav1.TableColumnDefinition{
	nameColumn(),
	column("DriverName", "string", storagev1.VolumeAttributesClass{}.SwaggerDoc()["driverName"]),
	ageColumn(),
}

func volumeAttributesClassCells(c *storagev1.VolumeAttributesClass, now time.Time) []any {
	name := c.Name
	if c.Annotations[defaultVolumeAttributesAnnotation] == "true" {
		name += " (default)"
	}
	return []any{name, c.DriverName, since(c.CreationTimestamp, now)}
}
