package printers

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
)

// Placeholders kubectl users know from kube-apiserver's tables.
const (
	none    = "<none>"
	unknown = "<unknown>"
	unset   = "<unset>"
)

var objectMetaDoc = metav1.ObjectMeta{}.SwaggerDoc()

// column builds a default-priority column.
func column(name, typ, description string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: typ, Description: description}
}

// wideColumn builds a priority 1 column, shown by kubectl only with -o wide.
func wideColumn(name, typ, description string) metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: name, Type: typ, Priority: 1, Description: description}
}

func nameColumn() metav1.TableColumnDefinition {
	return metav1.TableColumnDefinition{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]}
}

func ageColumn() metav1.TableColumnDefinition {
	return column("Age", "string", objectMetaDoc["creationTimestamp"])
}

// Wide columns shared by the workload controllers.
func containersColumn() metav1.TableColumnDefinition {
	return wideColumn("Containers", "string", "Names of the containers in the pod template.")
}

func imagesColumn() metav1.TableColumnDefinition {
	return wideColumn("Images", "string", "Images of the containers in the pod template.")
}

// since renders the time elapsed from t to now the way kubectl users expect
// ("5m", "3d4h"); a missing time is "<unknown>".
func since(t metav1.Time, now time.Time) string {
	if t.IsZero() {
		return unknown
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

func sinceMicro(t metav1.MicroTime, now time.Time) string {
	if t.IsZero() {
		return unknown
	}
	return duration.HumanDuration(now.Sub(t.Time))
}

// containerCells lays the containers' names and images out on one line each.
func containerCells(containers []corev1.Container) (names, images string) {
	n := make([]string, len(containers))
	i := make([]string, len(containers))
	for k, c := range containers {
		n[k], i[k] = c.Name, c.Image
	}
	return strings.Join(n, ","), strings.Join(i, ",")
}

// orNone replaces an empty string with "<none>".
func orNone(s string) string {
	if s == "" {
		return none
	}
	return s
}

// replicas reads an optional replica count; the API defaults a missing one
// to 1, and stored objects have been defaulted.
func replicas(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

func boolOr(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

// boolText renders an optional bool as "True", "False" or "<unset>".
func boolText(b *bool) string {
	switch {
	case b == nil:
		return unset
	case *b:
		return "True"
	}
	return "False"
}

// firstN joins up to shown items with commas and counts the rest as
// "a,b,c + 2 more..."; an empty list is "<unset>".
func firstN(items []string, shown int) string {
	if len(items) == 0 {
		return unset
	}
	if len(items) <= shown {
		return strings.Join(items, ",")
	}
	return fmt.Sprintf("%s + %d more...", strings.Join(items[:shown], ","), len(items)-shown)
}
