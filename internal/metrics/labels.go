package metrics

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/portcullis/portcullis/internal/request"
)

const (
	component = "apiserver"
	// otherVerb is reported for methods kube-apiserver does not know.
	otherVerb = "other"
	// applyPatchType is server-side apply's content type; such PATCHes are
	// reported as APPLY.
	applyPatchType = "application/apply-patch+yaml"
)

// scope is kube-apiserver's request scope label, which follows the route:
// a path naming an object, or a create, is "resource".
func scope(info *request.Info) string {
	if !info.IsResourceRequest {
		return ""
	}
	if nameInPath(info) || info.Verb == "create" {
		return "resource"
	}
	if info.Namespace != "" {
		return "namespace"
	}
	return "cluster"
}

// nameInPath tells a name from the URL path from one request.Parse takes
// from a list's or watch's metadata.name field selector: such a request is
// still a LIST or WATCH of a collection for metrics, as in kube-apiserver.
func nameInPath(info *request.Info) bool {
	if info.Parts != nil {
		return len(info.Parts) > 1
	}
	return info.Name != ""
}

// reportedVerb is the verb label: derived from the HTTP method, GET of a
// collection is LIST, watches are WATCH whatever their path, server-side
// apply is APPLY and the streaming subresources are CONNECT.
func reportedVerb(req *http.Request, info *request.Info, scope string) string {
	if info.Verb == "watch" {
		return "WATCH"
	}
	var verb string
	switch req.Method {
	case http.MethodGet, http.MethodHead:
		verb = "GET"
		if scope != "resource" && scope != "" {
			verb = "LIST"
		}
	case http.MethodPost:
		verb = "POST"
	case http.MethodPut:
		verb = "PUT"
	case http.MethodPatch:
		verb = "PATCH"
		if req.Header.Get("Content-Type") == applyPatchType {
			verb = "APPLY"
		}
	case http.MethodDelete:
		verb = "DELETE"
	case http.MethodConnect:
		verb = "CONNECT"
	default:
		return otherVerb
	}
	if info.IsResourceRequest && isConnectSubresource(info.Subresource) {
		return "CONNECT"
	}
	return verb
}

func isConnectSubresource(sub string) bool {
	switch sub {
	case "log", "exec", "portforward", "attach", "proxy":
		return true
	}
	return false
}

// dryRun is the dry_run label: "" without dryRun, the sorted distinct
// values ("All") otherwise, "invalid" if any value is not a dry-run mode.
func dryRun(req *http.Request) string {
	// Parsing the query allocates; most requests have no dryRun.
	if !strings.Contains(req.URL.RawQuery, "dryRun") {
		return ""
	}
	values := req.URL.Query()["dryRun"]
	for _, v := range values {
		if v != "All" {
			return "invalid"
		}
	}
	// "All" is the only dry-run mode, so the distinct values are "All".
	if len(values) == 0 {
		return ""
	}
	return "All"
}

// codes holds the code label of every valid status code, to spare a
// strconv allocation per request.
var codes = func() [600]string {
	var c [600]string
	for i := 100; i < len(c); i++ {
		c[i] = strconv.Itoa(i)
	}
	return c
}()

func codeLabel(code int) string {
	if code >= 100 && code < len(codes) {
		return codes[code]
	}
	return strconv.Itoa(code)
}

// isLongRunning is kube-apiserver's long-running check: watches, proxies,
// streaming subresources and the profiler.
func isLongRunning(info *request.Info) bool {
	switch info.Verb {
	case "watch", "proxy":
		return true
	}
	if info.IsResourceRequest {
		return info.Subresource == "attach" || info.Subresource == "exec" || info.Subresource == "proxy" ||
			info.Subresource == "log" || info.Subresource == "portforward"
	}
	return strings.HasPrefix(info.Path, "/debug/pprof/")
}

// isReadOnly says which inflight kind a request counts as.
func isReadOnly(info *request.Info) bool {
	switch info.Verb {
	case "get", "list", "watch":
		return true
	}
	return false
}
