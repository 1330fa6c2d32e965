package server

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/portcullis/portcullis/internal/authn/authnconfig"
)

// EtcdFlags are kube-apiserver's flags of its etcd storage.
type EtcdFlags struct {
	// Servers are --etcd-servers; none means the embedded store.
	Servers []string
	// Prefix is --etcd-prefix, the root of every key (on the embedded
	// store too).
	Prefix                    string
	CAFile, CertFile, KeyFile string
	Backend                   string
	HealthcheckTimeout        time.Duration
	ReadycheckTimeout         time.Duration
	// CountMetricPollPeriod is how often apiserver_resource_objects is
	// counted; 0 disables it.
	CountMetricPollPeriod time.Duration
}

// Config is the server's configuration, as the command line sets it.
type Config struct {
	DataDir           string
	BindAddress       string
	SecurePort        int
	TLSCertFile       string
	TLSPrivateKeyFile string
	ClientCAFile      string
	AuditPolicyFile   string
	AuditLogPath      string
	AuditLogMaxSize   int
	AuditLogMaxAge    int
	AuditLogMaxBackup int
	// CompactionInterval is how often the store discards old history
	// (kube-apiserver's --etcd-compaction-interval); 0 disables it.
	CompactionInterval time.Duration
	// Etcd is the etcd cluster to store objects in instead of the embedded
	// store, with kube-apiserver's --etcd-* and --storage-backend flags.
	Etcd EtcdFlags
	// EnableAdmissionPlugins, DisableAdmissionPlugins and
	// AdmissionControlConfigFile select and configure admission plugins.
	EnableAdmissionPlugins     []string
	DisableAdmissionPlugins    []string
	AdmissionControlConfigFile string
	// Service account tokens, with kube-apiserver's flags.
	ServiceAccountIssuers               []string
	ServiceAccountKeyFiles              []string
	ServiceAccountSigningKeyFile        string
	ServiceAccountMaxTokenExpiration    time.Duration
	ServiceAccountExtendTokenExpiration bool
	APIAudiences                        []string
	// Authentication, with kube-apiserver's flags.
	AuthenticationConfigFile string
	TokenAuthFile            string
	AnonymousAuth            bool
	// AnonymousAuthSet records whether --anonymous-auth was given, which
	// --authentication-config's anonymous field may not be.
	AnonymousAuthSet bool
	// OIDC are the --oidc-* flags: one JWT issuer without a file.
	OIDC authnconfig.OIDCFlags
	// AuthenticationTokenWebhook* are the --authentication-token-webhook-*
	// flags: bearer tokens nothing local recognises go to a webhook.
	AuthenticationTokenWebhookConfigFile string
	AuthenticationTokenWebhookVersion    string
	AuthenticationTokenWebhookCacheTTL   time.Duration
	// RequestHeader are the --requestheader-* flags: an authenticating
	// front proxy.
	RequestHeader RequestHeaderFlags
	// DefaultNotReadyTolerationSeconds and DefaultUnreachableTolerationSeconds
	// are the tolerations the DefaultTolerationSeconds plugin adds.
	DefaultNotReadyTolerationSeconds    int64
	DefaultUnreachableTolerationSeconds int64
	// AllowPrivileged is --allow-privileged: without it privileged
	// containers are refused, as kube-apiserver's default.
	AllowPrivileged bool
	// Controllers are kube-controller-manager's --controllers for the
	// controllers portcullis runs in process: "*" for the default ones,
	// "name" to enable one, "-name" to disable one.
	Controllers []string
	// Authorization, with kube-apiserver's flags.
	AuthorizationModes                       []string
	AuthorizationConfigFile                  string
	AuthorizationPolicyFile                  string
	AuthorizationWebhookConfigFile           string
	AuthorizationWebhookVersion              string
	AuthorizationWebhookCacheAuthorizedTTL   time.Duration
	AuthorizationWebhookCacheUnauthorizedTTL time.Duration
	// AuthorizationFlagsSet records whether any legacy authorization flag
	// was given, which --authorization-config excludes.
	AuthorizationFlagsSet bool
	// FeatureGates are --feature-gates: ManifestBasedAdmissionControlConfig
	// (beta, on) and ServiceAccountNodeAudienceRestriction (on).
	FeatureGates map[string]bool
	// EncryptionProviderConfig and EncryptionProviderConfigAutomaticReload
	// configure encryption at rest, with kube-apiserver's flags.
	EncryptionProviderConfig                string
	EncryptionProviderConfigAutomaticReload bool
	// TracingConfigFile is --tracing-config-file: export a span per
	// request to an OTLP collector.
	TracingConfigFile string
	// Profiling serves /debug/pprof, as kube-apiserver's --profiling.
	Profiling bool
	// ShutdownTimeout bounds how long in-flight requests may run after a stop signal.
	ShutdownTimeout time.Duration
	// WebhookAnswers, when set, answers admission webhooks by name from
	// recorded AdmissionReviews instead of calling them: offline runs
	// only, no flag sets it.
	WebhookAnswers func(webhook string) (review []byte, ok bool)
}

// RequestHeaderFlags are kube-apiserver's --requestheader-* flags; without
// a ClientCAFile no front proxy is trusted.
type RequestHeaderFlags struct {
	ClientCAFile        string
	AllowedNames        []string
	UsernameHeaders     []string
	UIDHeaders          []string
	GroupHeaders        []string
	ExtraHeaderPrefixes []string
}

// Default returns the configuration of `portcullis serve` with no flags.
func Default() Config {
	return Config{
		DataDir:                                  "portcullis-data",
		BindAddress:                              "127.0.0.1",
		SecurePort:                               6443,
		CompactionInterval:                       5 * time.Minute,
		Etcd:                                     EtcdFlags{Prefix: "/registry", HealthcheckTimeout: 2 * time.Second, ReadycheckTimeout: 2 * time.Second, CountMetricPollPeriod: time.Minute},
		ShutdownTimeout:                          60 * time.Second,
		Profiling:                                true,
		AnonymousAuth:                            true,
		AuthorizationModes:                       []string{"Node", "RBAC"},
		AuthorizationWebhookVersion:              "v1beta1",
		AuthorizationWebhookCacheAuthorizedTTL:   5 * time.Minute,
		AuthorizationWebhookCacheUnauthorizedTTL: 30 * time.Second,
		ServiceAccountIssuers:                    []string{"https://kubernetes.default.svc.cluster.local"},
		ServiceAccountExtendTokenExpiration:      true,
		AuditLogMaxSize:                          100,
		AuditLogMaxAge:                           366,
		AuditLogMaxBackup:                        100,
		AuthenticationTokenWebhookVersion:        "v1beta1",
		AuthenticationTokenWebhookCacheTTL:       2 * time.Minute,
		DefaultNotReadyTolerationSeconds:         300,
		DefaultUnreachableTolerationSeconds:      300,
		Controllers:                              []string{"*"},
	}
}

// Validate reports every problem with the configuration.
func (c *Config) Validate() error {
	var errs []error
	if c.DataDir == "" {
		errs = append(errs, errors.New("--data-dir: must not be empty"))
	}
	if net.ParseIP(c.BindAddress) == nil {
		errs = append(errs, fmt.Errorf("--bind-address: %q is not a valid IP address", c.BindAddress))
	}
	if c.SecurePort < 0 || c.SecurePort > 65535 {
		errs = append(errs, fmt.Errorf("--secure-port: %d must be between 0 and 65535, inclusive", c.SecurePort))
	}
	if (c.TLSCertFile == "") != (c.TLSPrivateKeyFile == "") {
		errs = append(errs, errors.New("--tls-cert-file and --tls-private-key-file must be given together"))
	}
	for name := range c.FeatureGates {
		if _, ok := knownGates[name]; !ok {
			errs = append(errs, fmt.Errorf("--feature-gates: unrecognized feature gate: %s", name))
		}
	}
	if c.EncryptionProviderConfigAutomaticReload && c.EncryptionProviderConfig == "" {
		errs = append(errs, errors.New("--encryption-provider-config-automatic-reload must be set with --encryption-provider-config"))
	}
	for _, n := range c.Controllers {
		if n != "*" && !slices.Contains(controllerNames, strings.TrimPrefix(n, "-")) {
			errs = append(errs, fmt.Errorf("--controllers: %q is not in the list of known controllers", n))
		}
	}
	errs = append(errs, c.Etcd.validate()...)
	if c.CompactionInterval < 0 {
		errs = append(errs, errors.New("--etcd-compaction-interval: must not be negative"))
	}
	return errors.Join(errs...)
}

func (c *Config) pkiDir() string { return filepath.Join(c.DataDir, "pki") }
func (c *Config) dbPath() string { return filepath.Join(c.DataDir, "db", "portcullis.db") }
func (c *Config) kubeconfigPath() string {
	return filepath.Join(c.DataDir, "admin.kubeconfig")
}

// controllerNames are the controllers portcullis runs in process, by
// their kube-controller-manager names; all are on by default.
var controllerNames = []string{
	"clusterrole-aggregation-controller",
	"namespace-controller",
	"resourcequota-controller",
	"root-ca-certificate-publisher-controller",
	"serviceaccount-controller",
	"validatingadmissionpolicy-status-controller",
}

// apiAudiences are --api-audiences, else the first service account
// issuer, as kube-apiserver defaults them.
func (c *Config) apiAudiences() []string {
	if len(c.APIAudiences) > 0 || len(c.ServiceAccountIssuers) == 0 {
		return c.APIAudiences
	}
	return c.ServiceAccountIssuers[:1]
}

// controller reports whether --controllers enables the named controller.
func (c *Config) controller(name string) bool {
	on := false
	for _, n := range c.Controllers {
		switch n {
		case "-" + name:
			return false
		case name:
			on = true
		case "*":
			on = true
		}
	}
	return on
}

// knownGates are the feature gates portcullis has, with their defaults.
var knownGates = map[string]bool{
	"ManifestBasedAdmissionControlConfig":   true,
	"ServiceAccountNodeAudienceRestriction": true,
	"RemoteRequestHeaderUID":                true,
	"GenericWorkload":                       false,
	"DRANodeAllocatableResources":           false,
	"PodLevelResources":                     true,
	"PodLevelResourcesFixKubeletQOSClass":   true,
	"PodTopologyLabelsAdmission":            true,
}

// gate returns a feature gate's value.
func (c *Config) gate(name string, def bool) bool {
	if v, ok := c.FeatureGates[name]; ok {
		return v
	}
	return def
}

// validate checks the etcd flags as kube-apiserver does.
func (e EtcdFlags) validate() []error {
	var errs []error
	if e.Backend != "" && e.Backend != "etcd3" {
		errs = append(errs, fmt.Errorf("--storage-backend invalid, allowed values: etcd3. If not specified, it will default to 'etcd3'"))
	}
	if len(e.Servers) == 0 {
		for flag, v := range map[string]string{"--etcd-cafile": e.CAFile, "--etcd-certfile": e.CertFile, "--etcd-keyfile": e.KeyFile} {
			if v != "" {
				errs = append(errs, fmt.Errorf("%s: needs --etcd-servers (without it objects are kept in the embedded store)", flag))
			}
		}
	}
	if (e.CertFile == "") != (e.KeyFile == "") {
		errs = append(errs, errors.New("--etcd-certfile and --etcd-keyfile must be given together"))
	}
	if e.HealthcheckTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--etcd-healthcheck-timeout should be a positive value"))
	}
	if e.ReadycheckTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--etcd-readycheck-timeout should be a positive value"))
	}
	return errs
}
