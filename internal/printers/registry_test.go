package printers

import (
	"reflect"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestRequiredPrinters pins which resources have printers of their own, and
// which, like in kube-apiserver, get the default table.
func TestRequiredPrinters(t *testing.T) {
	specific := []runtime.Object{
		&corev1.Pod{}, &corev1.Node{}, &corev1.Namespace{}, &corev1.ConfigMap{}, &corev1.Secret{},
		&corev1.ServiceAccount{}, &corev1.Service{}, &corev1.Endpoints{}, &corev1.Event{}, &eventsv1.Event{},
		&corev1.PersistentVolume{}, &corev1.PersistentVolumeClaim{}, &corev1.ResourceQuota{},
		&appsv1.Deployment{}, &appsv1.ReplicaSet{}, &appsv1.StatefulSet{}, &appsv1.DaemonSet{},
		&rbacv1.RoleBinding{}, &rbacv1.ClusterRoleBinding{}, &coordinationv1.Lease{},
		&storagev1.StorageClass{}, &storagev1.CSIDriver{}, &storagev1.CSINode{}, &storagev1.VolumeAttachment{},
		&certificatesv1.CertificateSigningRequest{},
		&admissionregistrationv1.ValidatingWebhookConfiguration{}, &admissionregistrationv1.MutatingWebhookConfiguration{},
		&admissionregistrationv1.ValidatingAdmissionPolicy{}, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{},
		&admissionregistrationv1.MutatingAdmissionPolicy{}, &admissionregistrationv1.MutatingAdmissionPolicyBinding{},
		&apiextensionsv1.CustomResourceDefinition{},
	}
	for _, obj := range specific {
		t.Run(reflect.TypeOf(obj).Elem().Name(), func(t *testing.T) {
			if _, ok := registry[reflect.TypeOf(obj)]; !ok {
				t.Errorf("no printer for %T", obj)
			}
		})
	}
	byDefault := []runtime.Object{&corev1.LimitRange{}, &rbacv1.Role{}, &rbacv1.ClusterRole{}}
	for _, obj := range byDefault {
		t.Run(reflect.TypeOf(obj).Elem().Name(), func(t *testing.T) {
			if _, ok := registry[reflect.TypeOf(obj)]; ok {
				t.Errorf("%T has a printer; kube-apiserver serves the default table", obj)
			}
		})
	}
}

func TestRegistrationsAreUnique(t *testing.T) {
	seen := map[reflect.Type]bool{}
	for _, r := range registrations() {
		if seen[r.typ] {
			t.Errorf("%v is registered twice", r.typ)
		}
		seen[r.typ] = true
		if r.typ.Kind() != reflect.Pointer || r.typ.Elem().Kind() != reflect.Struct {
			t.Errorf("%v is not a pointer to a struct", r.typ)
		}
	}
}

// TestCellsMatchColumns renders an empty object of every registered type:
// the row must have one cell per column, of a JSON-friendly type, and no
// printer may trip over missing fields.
func TestCellsMatchColumns(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, r := range registrations() {
		t.Run(r.typ.Elem().Name(), func(t *testing.T) {
			obj := reflect.New(r.typ.Elem()).Interface().(runtime.Object)
			row, err := r.printer.row(obj, now)
			if err != nil {
				t.Fatal(err)
			}
			if n := extraCells[r.typ.Elem().Name()]; n > 0 {
				row.Cells = row.Cells[:len(row.Cells)-n]
			}
			checkRow(t, r.printer.columns, row)
		})
	}
}

// extraCells counts the trailing cells kube-apiserver's rows of a type
// have beyond its columns (an IPAddress row ends with an age it declares
// no column for); clients ignore them.
var extraCells = map[string]int{"IPAddress": 1}

// checkRow checks the cells against the columns' declared types the way a
// client decoding the JSON would see them.
func checkRow(t *testing.T, columns []metav1.TableColumnDefinition, row metav1.TableRow) {
	t.Helper()
	if len(row.Cells) != len(columns) {
		t.Fatalf("%d cells for %d columns: %v", len(row.Cells), len(columns), row.Cells)
	}
	for i, c := range row.Cells {
		switch c.(type) {
		case string, int64, bool:
		default:
			t.Errorf("cell %d (%s) is a %T", i, columns[i].Name, c)
		}
		if _, isInt := c.(int64); columns[i].Type == "integer" && !isInt {
			t.Errorf("cell %d (%s) is a %T in an integer column", i, columns[i].Name, c)
		}
	}
}
