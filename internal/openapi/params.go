package openapi

import (
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// param is one operation or path parameter. Body parameters are not params:
// v2 and v3 write request bodies differently (operation.Body).
type param struct {
	Name        string
	In          string // "query" or "path"
	Description string
	Type        string // "string", "integer" or "boolean"
	Required    bool
}

// The query parameters are documented by the fields of the meta/v1 option
// types that carry them, as kube-apiserver documents them.
var (
	listDocs   = metav1.ListOptions{}.SwaggerDoc()
	createDocs = metav1.CreateOptions{}.SwaggerDoc()
	updateDocs = metav1.UpdateOptions{}.SwaggerDoc()
	patchDocs  = metav1.PatchOptions{}.SwaggerDoc()
	deleteDocs = metav1.DeleteOptions{}.SwaggerDoc()
)

func query(name, typ string, docs map[string]string) param {
	return param{Name: name, In: "query", Type: typ, Description: docs[name]}
}

var (
	prettyParam = param{
		Name: "pretty", In: "query", Type: "string",
		Description: "If 'true', then the output is pretty printed. Defaults to 'false' unless the user-agent indicates a browser or command-line HTTP tool (curl and wget).",
	}
	namespaceParam = param{
		Name: "namespace", In: "path", Type: "string", Required: true,
		Description: "object name and auth scope, such as for teams and projects",
	}

	listParams = []param{
		query("allowWatchBookmarks", "boolean", listDocs),
		query("continue", "string", listDocs),
		query("fieldSelector", "string", listDocs),
		query("labelSelector", "string", listDocs),
		query("limit", "integer", listDocs),
		query("resourceVersion", "string", listDocs),
		query("resourceVersionMatch", "string", listDocs),
		query("sendInitialEvents", "boolean", listDocs),
		query("shardSelector", "string", listDocs),
		query("timeoutSeconds", "integer", listDocs),
		query("watch", "boolean", listDocs),
	}
	// kubectl looks for fieldValidation among the parameters of a kind's
	// PATCH operation to decide whether the server validates fields itself.
	createParams = []param{
		query("dryRun", "string", createDocs),
		query("fieldManager", "string", createDocs),
		query("fieldValidation", "string", createDocs),
	}
	updateParams = []param{
		query("dryRun", "string", updateDocs),
		query("fieldManager", "string", updateDocs),
		query("fieldValidation", "string", updateDocs),
	}
	patchParams = []param{
		query("dryRun", "string", patchDocs),
		query("fieldManager", "string", patchDocs),
		query("fieldValidation", "string", patchDocs),
		query("force", "boolean", patchDocs),
	}
	deleteParams = []param{
		query("dryRun", "string", deleteDocs),
		query("gracePeriodSeconds", "integer", deleteDocs),
		query("ignoreStoreReadErrorWithClusterBreakingPotential", "boolean", deleteDocs),
		query("orphanDependents", "boolean", deleteDocs),
		query("propagationPolicy", "string", deleteDocs),
	}
	deleteCollectionParams = sortedParams(slices.Concat(deleteParams, without(listParams, "watch", "allowWatchBookmarks")))
)

func nameParam(kind string) param {
	return param{Name: "name", In: "path", Type: "string", Required: true, Description: "name of the " + kind}
}

func without(ps []param, names ...string) []param {
	return slices.DeleteFunc(slices.Clone(ps), func(p param) bool { return slices.Contains(names, p.Name) })
}

func sortedParams(ps []param) []param {
	slices.SortFunc(ps, func(a, b param) int { return strings.Compare(a.Name, b.Name) })
	return ps
}
