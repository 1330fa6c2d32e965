package healthz

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// Check is one named health check.
type Check struct {
	Name string
	Fn   func(ctx context.Context) error
}

// Ping always passes.
var Ping = Check{Name: "ping", Fn: func(context.Context) error { return nil }}

// Handler serves one endpoint (e.g. "readyz") with its checks.
type Handler struct {
	Endpoint string
	Checks   []Check
}

// ServeHTTP serves /<endpoint> and /<endpoint>/<check>.
func (h Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/"+h.Endpoint), "/")
	if rest != "" {
		for _, c := range h.Checks {
			if c.Name == rest {
				if err := c.Fn(r.Context()); err != nil {
					http.Error(w, fmt.Sprintf("internal server error: %v", err), http.StatusInternalServerError)
					return
				}
				writeText(w, http.StatusOK, "ok")
				return
			}
		}
		http.NotFound(w, r)
		return
	}
	excluded := map[string]bool{}
	for _, e := range r.URL.Query()["exclude"] {
		excluded[strings.TrimSpace(e)] = true
	}
	var b strings.Builder
	failed := false
	for _, c := range h.Checks {
		if excluded[c.Name] {
			fmt.Fprintf(&b, "[+]%s excluded: ok\n", c.Name)
			delete(excluded, c.Name)
			continue
		}
		if err := c.Fn(r.Context()); err != nil {
			failed = true
			fmt.Fprintf(&b, "[-]%s failed: reason withheld\n", c.Name)
			continue
		}
		fmt.Fprintf(&b, "[+]%s ok\n", c.Name)
	}
	for name := range excluded {
		fmt.Fprintf(&b, "warn: some health checks cannot be excluded: no matches for %q\n", name)
	}
	_, verbose := r.URL.Query()["verbose"]
	if failed {
		fmt.Fprintf(&b, "%s check failed\n", h.Endpoint)
		writeText(w, http.StatusInternalServerError, b.String())
		return
	}
	if !verbose {
		writeText(w, http.StatusOK, "ok")
		return
	}
	fmt.Fprintf(&b, "%s check passed\n", h.Endpoint)
	writeText(w, http.StatusOK, b.String())
}

func writeText(w http.ResponseWriter, code int, s string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write([]byte(s))
}
