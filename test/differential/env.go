package differential

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/csv"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/portcullis/portcullis/internal/authn/jwt/oidctest"
	"github.com/portcullis/portcullis/internal/pki"
)

// env is everything a suite's server and clients share: the directory
// with its files, the PKI, the users' credentials and the fixtures. One env
// serves one target.
type env struct {
	suite *Suite
	dir   string
	pki   pki.Files
	// saKey and saPub are the service account signing key pair.
	saKey, saPub string
	auditLog     string
	// scratch holds files being written before they are renamed into dir.
	scratch string

	webhooks *webhookFixture
	authz    *webhookFixture
	issuer   *oidctest.Issuer
	jwtKey   *oidctest.Key

	// creds maps a user to its credentials: a bearer token or a cert pair.
	creds map[string]credential
}

type credential struct {
	token           string
	cert, key       string // files
	certPEM, keyPEM []byte
}

// audience is the JWT audience scenarios configure.
const audience = "portcullis"

func newEnv(t *testing.T, s *Suite) *env {
	t.Helper()
	e := &env{dir: t.TempDir(), creds: map[string]credential{}}
	var err error
	e.pki, err = pki.Ensure(filepath.Join(e.dir, "pki"), []string{"127.0.0.1", "localhost"})
	if err != nil {
		t.Fatal(err)
	}
	e.saKey, e.saPub = writeSAKeys(t, filepath.Join(e.dir, "pki"))
	e.webhooks = newWebhookFixture(t, s.Webhooks, admissionAnswer)
	e.authz = newWebhookFixture(t, s.Authz, authzAnswer)
	if e.jwtKey, err = oidctest.NewRSAKey("k1"); err != nil {
		t.Fatal(err)
	}
	e.issuer = oidctest.New(t, e.jwtKey)
	// The suite again, now with the fixtures' addresses in it.
	if e.suite, err = parseSuite(s.text, e.vars()); err != nil {
		t.Fatal(err)
	}
	e.suite.Name = s.Name
	e.auditLog = filepath.Join(e.dir, "audit.log")
	e.writeFile(t, "audit-policy.yaml", auditPolicy)
	e.writeUsers(t)
	for name, content := range e.suite.Files {
		e.writeFile(t, name, content)
	}
	return e
}

// auditPolicy records every request at Metadata level, which carries the
// annotations scenarios compare.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
`

func (e *env) writeFile(t *testing.T, name, content string) {
	t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeFileAtomic writes name as a step does: the content goes to a
// temporary file outside the suite directory first and is renamed into
// place, so a watched directory sees one event and never a partial file.
func (e *env) writeFileAtomic(t *testing.T, name, content string) {
	t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if e.scratch == "" {
		e.scratch = t.TempDir()
	}
	f, err := os.CreateTemp(e.scratch, "write-*")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString(content)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// varNames are the values a suite file may refer to as {{.Name}}.
var varNames = []string{"Dir", "Webhook", "WebhookCA", "WebhookCAPEM", "Authz", "Issuer", "IssuerCA", "CA", "SAKey"}

// vars are the values of varNames.
func (e *env) vars() map[string]string {
	return map[string]string{
		"Dir":          e.dir,
		"Webhook":      e.webhooks.url,
		"WebhookCA":    base64.StdEncoding.EncodeToString(e.webhooks.caPEM),
		"WebhookCAPEM": string(e.webhooks.caPEM),
		"Authz":        e.authz.url,
		"Issuer":       e.issuer.URL,
		"IssuerCA":     e.issuer.CAPEM,
		"CA":           e.pki.CACert,
		"SAKey":        e.saPub,
	}
}

// placeholders are what the vars become in recorded results, so that
// goldens do not hold ports and directories.
func (e *env) placeholders() []string {
	v := e.vars()
	return []string{
		v["Dir"], "<dir>",
		v["Webhook"], "<webhook>",
		v["Authz"], "<authz>",
		v["Issuer"], "<issuer>",
	}
}

var templateFuncs = template.FuncMap{
	// indent prefixes every line but the first with n spaces, for PEM in YAML.
	"indent": func(n int, s string) string {
		return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+strings.Repeat(" ", n))
	},
}

func renderTemplate(text string, vars map[string]string) (string, error) {
	tmpl, err := template.New("").Option("missingkey=error").Funcs(templateFuncs).Parse(text)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, vars); err != nil {
		return "", err
	}
	return b.String(), nil
}

// writeUsers writes the token file and client certificates, and mints the
// JWTs.
func (e *env) writeUsers(t *testing.T) {
	t.Helper()
	e.creds["admin"] = credential{cert: e.pki.AdminCert, key: e.pki.AdminKey}
	names := make([]string, 0, len(e.suite.Users))
	for n := range e.suite.Users {
		names = append(names, n)
	}
	sort.Strings(names)
	var tokens bytes.Buffer
	w := csv.NewWriter(&tokens)
	for _, name := range names {
		u := e.suite.Users[name]
		switch {
		case u.Token != "":
			uid := u.UID
			if uid == "" {
				uid = name
			}
			rec := []string{u.Token, name, uid}
			if len(u.Groups) > 0 {
				rec = append(rec, strings.Join(u.Groups, ","))
			}
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
			e.creds[name] = credential{token: u.Token}
		case u.Cert:
			certPEM, keyPEM, err := pki.IssueClient(e.pki, name, u.Groups)
			if err != nil {
				t.Fatal(err)
			}
			c := credential{cert: filepath.Join(e.dir, "pki", name+".crt"), key: filepath.Join(e.dir, "pki", name+".key")}
			e.writeFile(t, "pki/"+name+".crt", string(certPEM))
			e.writeFile(t, "pki/"+name+".key", string(keyPEM))
			e.creds[name] = c
		default:
			tok, err := e.jwtKey.Sign(e.claims(t, u.JWT))
			if err != nil {
				t.Fatal(err)
			}
			e.creds[name] = credential{token: tok}
		}
	}
	w.Flush()
	e.writeFile(t, "tokens.csv", tokens.String())
}

// claims fills in the defaults and resolves relative times.
func (e *env) claims(t *testing.T, given map[string]any) map[string]any {
	t.Helper()
	now := time.Now()
	c := map[string]any{"iss": e.issuer.URL, "aud": audience, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	for k, v := range given {
		if s, ok := v.(string); ok && strings.HasPrefix(s, "now") {
			d := time.Duration(0)
			if rest := strings.TrimPrefix(s, "now"); rest != "" {
				var err error
				if d, err = time.ParseDuration(strings.TrimPrefix(rest, "+")); err != nil {
					t.Fatalf("claim %s: %v", k, err)
				}
			}
			v = now.Add(d).Unix()
		}
		c[k] = v
	}
	return c
}

// writeSAKeys writes a service account RSA key pair and returns the paths
// of the private and public keys.
func writeSAKeys(t *testing.T, dir string) (key, pub string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	key, pub = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return key, pub
}

// commonFlags are given to both servers: the shared PKI, users and audit
// log, and kube-apiserver's flags that portcullis defaults differently
// (kube-apiserver authorizes AlwaysAllow without --authorization-mode).
func (e *env) commonFlags(t *testing.T) []string {
	t.Helper()
	flags := []string{
		"--tls-cert-file=" + e.pki.ServingCert,
		"--tls-private-key-file=" + e.pki.ServingKey,
		"--client-ca-file=" + e.pki.CACert,
		"--service-account-key-file=" + e.saPub,
		"--service-account-signing-key-file=" + e.saKey,
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		// Scenarios write privileged pods for the policies that judge them.
		"--allow-privileged=true",
		"--token-auth-file=" + filepath.Join(e.dir, "tokens.csv"),
		"--audit-log-path=" + e.auditLog,
		"--audit-policy-file=" + filepath.Join(e.dir, "audit-policy.yaml"),
	}
	suite := e.suite.Flags
	if !hasFlag(suite, "--authorization-mode") && !hasFlag(suite, "--authorization-config") {
		flags = append(flags, "--authorization-mode=Node,RBAC")
	}
	if !hasFlag(suite, "--enable-admission-plugins") {
		flags = append(flags, "--enable-admission-plugins=NodeRestriction")
	}
	if !hasFlag(suite, "--feature-gates") {
		flags = append(flags, "--feature-gates=ManifestBasedAdmissionControlConfig=true")
	}
	return append(flags, suite...)
}

func hasFlag(flags []string, name string) bool {
	for _, f := range flags {
		if f == name || strings.HasPrefix(f, name+"=") {
			return true
		}
	}
	return false
}

// kubeconfig writes a kubeconfig for user against server and returns its path.
func (e *env) kubeconfig(t *testing.T, server, user string) string {
	t.Helper()
	c := e.creds[user]
	var auth string
	if c.token != "" {
		auth = "    token: " + strconv.Quote(c.token)
	} else {
		auth = fmt.Sprintf("    client-certificate: %s\n    client-key: %s", c.cert, c.key)
	}
	p := filepath.Join(e.dir, "kubeconfig-"+user)
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: target
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: %s
  user:
%s
contexts:
- name: target
  context: {cluster: target, user: %s}
current-context: target
`, server, e.pki.CACert, user, auth, user)
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
