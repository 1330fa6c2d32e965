package printers

import (
	"sort"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// apiextensionsKinds names the kinds of apiextensions.k8s.io/v1 objects in
// rows, which client-go's scheme does not know.
func apiextensionsKinds(obj runtime.Object) []schema.GroupVersionKind {
	if _, ok := obj.(*apiextensionsv1.CustomResourceDefinition); ok {
		return []schema.GroupVersionKind{apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")}
	}
	return nil
}

// apiextensionsPrinters covers apiextensions.k8s.io/v1. kube-apiserver
// serves CustomResourceDefinitions with a table of their own, not the
// default one: `kubectl get crd` shows NAME, SCOPE, VERSIONS and CREATED AT (an RFC 3339
// time, not an age), -o wide adds GROUP, KIND, SHORTNAMES and ESTABLISHED.
func apiextensionsPrinters() []registration {
	return []registration{
		cellsPrinter([]metav1.TableColumnDefinition{
			nameColumn(),
			column("Scope", "string", "Cluster/Namespaced"),
			column("Versions", "string", "Served versions"),
			column("Created At", "date", objectMetaDoc["creationTimestamp"]),
			wideColumn("Group", "string", "API group"),
			wideColumn("Kind", "string", "CustomResource kind"),
			wideColumn("ShortNames", "string", "Short names"),
			wideColumn("Established", "boolean", "Established status"),
		}, func(c *apiextensionsv1.CustomResourceDefinition, _ time.Time) []any {
			// Served versions only, the storage one marked, sorted as
			// strings ("v1(storage)" before "v1beta1").
			var versions []string
			for _, v := range c.Spec.Versions {
				if v.Served {
					label := v.Name
					if v.Storage {
						label += "(storage)"
					}
					versions = append(versions, label)
				}
			}
			sort.Strings(versions)
			established := false
			for _, cond := range c.Status.Conditions {
				if cond.Type == apiextensionsv1.Established {
					established = cond.Status == apiextensionsv1.ConditionTrue
					break
				}
			}
			return []any{
				c.Name, string(c.Spec.Scope), strings.Join(versions, ","),
				c.CreationTimestamp.UTC().Format(time.RFC3339),
				c.Spec.Group, c.Spec.Names.Kind, strings.Join(c.Spec.Names.ShortNames, ","), established,
			}
		}),
	}
}
