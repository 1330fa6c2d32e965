// Package probe asks a server under measurement whether it is ready, for
// the load tools (hack/load, hack/bench).
package probe

import (
	"context"
	"io"
	"net/http"
)

// Ready reports whether url's /readyz answers 200 "ok", as kube-apiserver
// and portcullis do once they serve.
func Ready(ctx context.Context, c *http.Client, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/readyz", nil)
	if err != nil {
		return false
	}
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode == http.StatusOK && string(body) == "ok"
}
