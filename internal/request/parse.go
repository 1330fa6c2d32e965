package request

import (
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/fields"
)

// namespaceSubresources are the subresources of a Namespace object, whose
// paths would otherwise read as a resource inside the namespace.
var namespaceSubresources = map[string]bool{"status": true, "finalize": true}

// Parse derives Info from a request the way kube-apiserver does, so that
// authorization, audit and metrics see the same attributes for the same
// request. Paths outside /api and /apis, and /api, /apis/<group> and the
// like, are non-resource requests.
func Parse(r *http.Request) *Info {
	info := &Info{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	parts := splitPath(r.URL.Path)
	if len(parts) < 2 || (parts[0] != "api" && parts[0] != "apis") {
		return info
	}
	prefix := parts[0]
	parts = parts[1:]
	group := ""
	if prefix == "apis" {
		if len(parts) < 2 {
			return info
		}
		group, parts = parts[0], parts[1:]
	}
	version := parts[0]
	parts = parts[1:]
	info.APIPrefix, info.APIGroup, info.APIVersion = prefix, group, version
	if len(parts) == 0 {
		return info
	}
	info.IsResourceRequest = true

	if parts[0] == "watch" {
		info.Verb = "watch"
		parts = parts[1:]
	} else {
		switch r.Method {
		case http.MethodPost:
			info.Verb = "create"
		case http.MethodGet, http.MethodHead:
			info.Verb = "get"
		case http.MethodPut:
			info.Verb = "update"
		case http.MethodPatch:
			info.Verb = "patch"
		case http.MethodDelete:
			info.Verb = "delete"
		default:
			info.Verb = ""
		}
	}
	if len(parts) > 0 && parts[0] == "namespaces" && len(parts) > 1 {
		info.Namespace = parts[1]
		if len(parts) > 2 && !namespaceSubresources[parts[2]] {
			parts = parts[2:]
		}
	}
	info.Parts = parts
	if len(parts) > 0 {
		info.Resource = parts[0]
	}
	if len(parts) > 1 {
		info.Name = parts[1]
	}
	if len(parts) > 2 {
		info.Subresource = parts[2]
	}
	if info.Name == "" {
		switch info.Verb {
		case "get":
			info.Verb = "list"
		case "delete":
			info.Verb = "deletecollection"
		}
	}
	if info.Verb == "list" {
		if w := r.URL.Query().Get("watch"); w == "true" || w == "1" {
			info.Verb = "watch"
		}
	}
	if info.Verb == "list" || info.Verb == "watch" || info.Verb == "deletecollection" {
		q := r.URL.Query()
		info.FieldSelector, info.LabelSelector = q.Get("fieldSelector"), q.Get("labelSelector")
	}
	// A list or watch narrowed to one name is authorized as that name.
	if (info.Verb == "list" || info.Verb == "watch") && info.Name == "" {
		if fs := r.URL.Query().Get("fieldSelector"); fs != "" {
			if sel, err := fields.ParseSelector(fs); err == nil {
				if name, ok := sel.RequiresExactMatch("metadata.name"); ok {
					info.Name = name
				}
			}
		}
	}
	return info
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
