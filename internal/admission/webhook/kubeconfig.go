package webhook

import (
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// credentials are the users of the kubeconfig named by
// WebhookAdmissionConfiguration.kubeConfigFile, each the credentials for
// the webhook hosts its name matches.
type credentials struct {
	cfg   *clientcmdapi.Config
	users map[string]*authInfo
}

// authInfo is one resolved user: what to present to a webhook.
type authInfo struct {
	// name is the kubeconfig user's name, part of the client cache key.
	name               string
	token              string
	username, password string
	cert               *tls.Certificate
}

func loadCredentials(path string) (*credentials, error) {
	if path == "" {
		return &credentials{}, nil
	}
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		return nil, fmt.Errorf("loading webhook kubeConfigFile: %w", err)
	}
	c := &credentials{cfg: cfg, users: map[string]*authInfo{}}
	// Files are read and certificates parsed once, and unusable users
	// reported at load rather than at the first call.
	for name := range cfg.AuthInfos {
		u, err := c.resolve(name)
		if err != nil {
			return nil, err
		}
		c.users[name] = u
	}
	return c, nil
}

// lookup finds the user for a webhook host, as kube-apiserver does: the
// exact host:port, then "*.<suffix>" wildcards dropping one leading
// segment at a time; for port 443 the same with the bare host; then "*";
// then the user of the current context. nil means none.
func (c *credentials) lookup(target string) (*authInfo, error) {
	// The error result leaves room for credentials read per call.
	if c == nil || c.cfg == nil {
		return nil, nil
	}
	if name, ok := c.match(target); ok {
		return c.users[name], nil
	}
	if host, port, err := net.SplitHostPort(target); err == nil && port == "443" {
		if name, ok := c.match(host); ok {
			return c.users[name], nil
		}
	}
	if _, ok := c.cfg.AuthInfos["*"]; ok {
		return c.users["*"], nil
	}
	if ctx, ok := c.cfg.Contexts[c.cfg.CurrentContext]; ok && ctx.AuthInfo != "" {
		if _, ok := c.cfg.AuthInfos[ctx.AuthInfo]; ok {
			return c.users[ctx.AuthInfo], nil
		}
	}
	return nil, nil
}

func (c *credentials) match(target string) (string, bool) {
	if _, ok := c.cfg.AuthInfos[target]; ok {
		return target, true
	}
	steps := strings.Split(target, ".")
	for i := 1; i < len(steps); i++ {
		name := "*." + strings.Join(steps[i:], ".")
		if _, ok := c.cfg.AuthInfos[name]; ok {
			return name, true
		}
	}
	return "", false
}

func (c *credentials) resolve(name string) (*authInfo, error) {
	ai := c.cfg.AuthInfos[name]
	out := &authInfo{name: name, token: ai.Token, username: ai.Username, password: ai.Password}
	if out.token == "" && ai.TokenFile != "" {
		b, err := os.ReadFile(ai.TokenFile)
		if err != nil {
			return nil, fmt.Errorf("webhook kubeconfig user %q: %w", name, err)
		}
		out.token = strings.TrimSpace(string(b))
	}
	if ai.ClientCertificate != "" || len(ai.ClientCertificateData) > 0 {
		certPEM, keyPEM := ai.ClientCertificateData, ai.ClientKeyData
		var err error
		if len(certPEM) == 0 {
			if certPEM, err = os.ReadFile(ai.ClientCertificate); err != nil {
				return nil, fmt.Errorf("webhook kubeconfig user %q: %w", name, err)
			}
		}
		if len(keyPEM) == 0 && ai.ClientKey != "" {
			if keyPEM, err = os.ReadFile(ai.ClientKey); err != nil {
				return nil, fmt.Errorf("webhook kubeconfig user %q: %w", name, err)
			}
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("webhook kubeconfig user %q: %w", name, err)
		}
		out.cert = &cert
	}
	switch {
	case ai.AuthProvider != nil:
		return nil, fmt.Errorf("webhook kubeconfig user %q: %w: auth provider", name, ErrCredentialNotSupported)
	case ai.Exec != nil:
		return nil, fmt.Errorf("webhook kubeconfig user %q: %w: exec", name, ErrCredentialNotSupported)
	case ai.Impersonate != "" || len(ai.ImpersonateGroups) > 0:
		return nil, fmt.Errorf("webhook kubeconfig user %q: %w: impersonation", name, ErrCredentialNotSupported)
	}
	return out, nil
}

// Name implements webhookclient.Credential.
func (ai *authInfo) Name() string { return ai.name }

// Certificate implements webhookclient.Credential.
func (ai *authInfo) Certificate() *tls.Certificate { return ai.cert }

// Authorize adds the user's header credentials to a webhook request.
func (ai *authInfo) Authorize(req *http.Request) {
	if ai == nil {
		return
	}
	switch {
	case ai.token != "":
		req.Header.Set("Authorization", "Bearer "+ai.token)
	case ai.username != "" || ai.password != "":
		req.SetBasicAuth(ai.username, ai.password)
	}
}
