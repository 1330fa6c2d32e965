package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/portcullis/portcullis/internal/admission/plugins"
	"github.com/portcullis/portcullis/internal/server"
	"github.com/portcullis/portcullis/internal/version"
)

func main() {
	if err := newRoot().Execute(); err != nil {
		var e *exitError
		if errors.As(err, &e) {
			os.Exit(e.code)
		}
		os.Exit(1)
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "portcullis",
		Short:         "A lean, Kubernetes-compatible API server built around authentication, authorization, admission and encryption at rest",
		SilenceUsage:  true,
		SilenceErrors: false,
	}
	root.AddCommand(newServe(), newAdmit(), newTest(), newVersion(), newWhy())
	return root
}

func newServe() *cobra.Command {
	cfg := server.Default()
	var verbosity int
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the Kubernetes API over HTTPS",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			level := slog.LevelInfo
			if verbosity >= 4 {
				level = slog.LevelDebug
			}
			finishChainFlags(cmd.Flags(), &cfg)
			log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
			defer stop()
			return server.Run(ctx, cfg, log)
		},
	}
	f := cmd.Flags()
	f.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "Directory for the embedded store, the generated key material and admin.kubeconfig.")
	f.StringVar(&cfg.BindAddress, "bind-address", cfg.BindAddress, "The IP address on which to listen for the --secure-port port.")
	f.IntVar(&cfg.SecurePort, "secure-port", cfg.SecurePort, "The port on which to serve HTTPS with authentication and authorization. 0 picks a free port.")
	f.StringVar(&cfg.TLSCertFile, "tls-cert-file", "", "File containing the default x509 certificate for HTTPS (CA cert, if any, concatenated after server cert). Generated in --data-dir when not given.")
	f.StringVar(&cfg.TLSPrivateKeyFile, "tls-private-key-file", "", "File containing the default x509 private key matching --tls-cert-file.")
	f.StringVar(&cfg.ClientCAFile, "client-ca-file", "", "If set, any request presenting a client certificate signed by one of the authorities in the client-ca-file is authenticated with an identity corresponding to the CommonName of the client certificate. Defaults to the generated CA.")
	f.DurationVar(&cfg.CompactionInterval, "etcd-compaction-interval", cfg.CompactionInterval, "The interval of compaction requests. If 0, the compaction request from apiserver is disabled.")
	f.StringSliceVar(&cfg.Etcd.Servers, "etcd-servers", nil, "List of etcd servers to connect with (scheme://ip:port), comma separated. Without it objects are kept in the embedded store in --data-dir.")
	f.StringVar(&cfg.Etcd.Prefix, "etcd-prefix", cfg.Etcd.Prefix, "The prefix to prepend to all resource paths in etcd (and in the embedded store).")
	f.StringVar(&cfg.Etcd.KeyFile, "etcd-keyfile", "", "SSL key file used to secure etcd communication.")
	f.StringVar(&cfg.Etcd.CertFile, "etcd-certfile", "", "SSL certification file used to secure etcd communication.")
	f.StringVar(&cfg.Etcd.CAFile, "etcd-cafile", "", "SSL Certificate Authority file used to secure etcd communication.")
	f.StringVar(&cfg.Etcd.Backend, "storage-backend", "", "The storage backend for persistence. Options: 'etcd3' (default).")
	f.DurationVar(&cfg.Etcd.HealthcheckTimeout, "etcd-healthcheck-timeout", cfg.Etcd.HealthcheckTimeout, "The timeout to use when checking etcd health.")
	f.DurationVar(&cfg.Etcd.ReadycheckTimeout, "etcd-readycheck-timeout", cfg.Etcd.ReadycheckTimeout, "The timeout to use when checking etcd readiness")
	f.DurationVar(&cfg.Etcd.CountMetricPollPeriod, "etcd-count-metric-poll-period", cfg.Etcd.CountMetricPollPeriod, "Frequency of polling etcd for number of resources per type. 0 disables the metric collection.")
	f.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", cfg.ShutdownTimeout, "How long in-flight requests may run after SIGTERM or SIGINT before they are cut off.")
	f.StringVar(&cfg.AuditPolicyFile, "audit-policy-file", "", "Path to the file that defines the audit policy configuration.")
	f.StringVar(&cfg.AuditLogPath, "audit-log-path", "", "If set, all requests coming to the apiserver will be logged to this file. '-' means standard out.")
	f.IntVar(&cfg.AuditLogMaxSize, "audit-log-maxsize", cfg.AuditLogMaxSize, "The maximum size in megabytes of the audit log file before it gets rotated.")
	f.IntVar(&cfg.AuditLogMaxAge, "audit-log-maxage", cfg.AuditLogMaxAge, "The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.")
	f.IntVar(&cfg.AuditLogMaxBackup, "audit-log-maxbackup", cfg.AuditLogMaxBackup, "The maximum number of old audit log files to retain. Setting a value of 0 will mean there's no restriction on the number of files.")
	f.StringSliceVar(&cfg.Controllers, "controllers", cfg.Controllers, "A list of the in-process controllers to enable, with kube-controller-manager's names. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'. All controllers: clusterrole-aggregation-controller, namespace-controller, resourcequota-controller, root-ca-certificate-publisher-controller, serviceaccount-controller, validatingadmissionpolicy-status-controller.")
	f.StringVar(&cfg.RequestHeader.ClientCAFile, "requestheader-client-ca-file", "", "Root certificate bundle to use to verify client certificates on incoming requests before trusting usernames in headers specified by --requestheader-username-headers. WARNING: generally do not depend on authorization being already done for incoming requests.")
	f.StringSliceVar(&cfg.RequestHeader.AllowedNames, "requestheader-allowed-names", nil, "List of client certificate common names to allow to provide usernames in headers specified by --requestheader-username-headers. If empty, any client certificate validated by the authorities in --requestheader-client-ca-file is allowed.")
	f.StringSliceVar(&cfg.RequestHeader.UsernameHeaders, "requestheader-username-headers", nil, "List of request headers to inspect for usernames. X-Remote-User is common.")
	f.StringSliceVar(&cfg.RequestHeader.UIDHeaders, "requestheader-uid-headers", nil, "List of request headers to inspect for UIDs. X-Remote-Uid is suggested. Requires the RemoteRequestHeaderUID feature to be enabled.")
	f.StringSliceVar(&cfg.RequestHeader.GroupHeaders, "requestheader-group-headers", nil, "List of request headers to inspect for groups. X-Remote-Group is suggested.")
	f.StringSliceVar(&cfg.RequestHeader.ExtraHeaderPrefixes, "requestheader-extra-headers-prefix", nil, "List of request header prefixes to inspect. X-Remote-Extra- is suggested.")
	f.StringVar(&cfg.EncryptionProviderConfig, "encryption-provider-config", "", "The file containing configuration for encryption providers to be used for storing secrets in etcd")
	f.BoolVar(&cfg.EncryptionProviderConfigAutomaticReload, "encryption-provider-config-automatic-reload", false, "Determines if the file set by --encryption-provider-config should be automatically reloaded if the disk contents change. Setting this to true disables the ability to uniquely identify distinct KMS plugins via the API server healthz endpoints.")
	f.StringVar(&cfg.TracingConfigFile, "tracing-config-file", "", "File with apiserver tracing configuration.")
	f.BoolVar(&cfg.Profiling, "profiling", cfg.Profiling, "Enable profiling via web interface host:port/debug/pprof/")
	f.IntVarP(&verbosity, "v", "v", 0, "Log verbosity; 4 or more logs debug messages.")

	addChainFlags(f, &cfg)
	return cmd
}

// addChainFlags registers the flags of the access-control chain, which
// `portcullis serve`, `admit` and `test` share: authentication,
// authorization, admission, service accounts and feature gates, with
// kube-apiserver's names.
func addChainFlags(f *pflag.FlagSet, cfg *server.Config) {
	pluginList := fmt.Sprintf("(%s). Comma-delimited list of admission plugins: %s. The order of plugins in this flag does not matter.",
		strings.Join(plugins.DefaultEnabled(), ", "), strings.Join(plugins.Names(), ", "))
	f.StringSliceVar(&cfg.EnableAdmissionPlugins, "enable-admission-plugins", nil, "admission plugins that should be enabled in addition to default enabled ones "+pluginList)
	f.StringSliceVar(&cfg.DisableAdmissionPlugins, "disable-admission-plugins", nil, "admission plugins that should be disabled although they are in the default enabled plugins list "+pluginList)
	f.Int64Var(&cfg.DefaultNotReadyTolerationSeconds, "default-not-ready-toleration-seconds", cfg.DefaultNotReadyTolerationSeconds, "Indicates the tolerationSeconds of the toleration for notReady:NoExecute that is added by default to every pod that does not already have such a toleration.")
	f.Int64Var(&cfg.DefaultUnreachableTolerationSeconds, "default-unreachable-toleration-seconds", cfg.DefaultUnreachableTolerationSeconds, "Indicates the tolerationSeconds of the toleration for unreachable:NoExecute that is added by default to every pod that does not already have such a toleration.")
	f.BoolVar(&cfg.AllowPrivileged, "allow-privileged", cfg.AllowPrivileged, "If true, allow privileged containers. [default=false]")
	f.StringVar(&cfg.AdmissionControlConfigFile, "admission-control-config-file", "", "File with admission control configuration.")
	f.StringArrayVar(&cfg.ServiceAccountIssuers, "service-account-issuer", cfg.ServiceAccountIssuers, "Identifier of the service account token issuer. May be given several times: the first issues tokens, all are accepted.")
	f.StringArrayVar(&cfg.ServiceAccountKeyFiles, "service-account-key-file", nil, "File containing PEM-encoded x509 RSA or ECDSA private or public keys, used to verify ServiceAccount tokens. May be given several times. Defaults to the generated key in --data-dir.")
	f.StringVar(&cfg.ServiceAccountSigningKeyFile, "service-account-signing-key-file", "", "Path to the file that contains the current private key of the service account token issuer. Generated in --data-dir when not given.")
	f.DurationVar(&cfg.ServiceAccountMaxTokenExpiration, "service-account-max-token-expiration", 0, "The maximum validity duration of a token created by the service account token issuer.")
	f.BoolVar(&cfg.ServiceAccountExtendTokenExpiration, "service-account-extend-token-expiration", cfg.ServiceAccountExtendTokenExpiration, "Turns on projected service account expiration extension during token generation.")
	f.StringSliceVar(&cfg.APIAudiences, "api-audiences", nil, "Identifiers of the API. Tokens used against the API should be bound to at least one of these audiences. Defaults to the first --service-account-issuer.")
	f.StringVar(&cfg.AuthenticationConfigFile, "authentication-config", "", "File with Authentication Configuration to configure the JWT Token authenticator or the anonymous authenticator.")
	f.StringVar(&cfg.OIDC.IssuerURL, "oidc-issuer-url", "", "The URL of the OpenID issuer, only HTTPS scheme will be accepted. If set, it will be used to verify the OIDC JSON Web Token (JWT).")
	f.StringVar(&cfg.OIDC.ClientID, "oidc-client-id", "", "The client ID for the OpenID Connect client, must be set if oidc-issuer-url is set.")
	f.StringVar(&cfg.OIDC.CAFile, "oidc-ca-file", "", "If set, the OpenID server's certificate will be verified by one of the authorities in the oidc-ca-file, otherwise the host's root CA set will be used.")
	f.StringVar(&cfg.OIDC.UsernameClaim, "oidc-username-claim", "sub", "The OpenID claim to use as the user name.")
	f.StringVar(&cfg.OIDC.UsernamePrefix, "oidc-username-prefix", "", "If provided, all usernames will be prefixed with this value. If not provided, username claims other than 'email' are prefixed by the issuer URL to avoid clashes. To skip any prefixing, provide the value '-'.")
	f.StringVar(&cfg.OIDC.GroupsClaim, "oidc-groups-claim", "", "If provided, the name of a custom OpenID Connect claim for specifying user groups. The claim value is expected to be a string or array of strings.")
	f.StringVar(&cfg.OIDC.GroupsPrefix, "oidc-groups-prefix", "", "If provided, all groups will be prefixed with this value to prevent conflicts with other authentication strategies.")
	f.StringToStringVar(&cfg.OIDC.RequiredClaims, "oidc-required-claim", nil, "A key=value pair that describes a required claim in the ID Token. If set, the claim is verified to be present in the ID Token with a matching value. Repeat this flag to specify multiple claims.")
	f.StringSliceVar(&cfg.OIDC.SigningAlgs, "oidc-signing-algs", []string{"RS256"}, "Comma-separated list of allowed JOSE asymmetric signing algorithms.")
	f.StringVar(&cfg.AuthenticationTokenWebhookConfigFile, "authentication-token-webhook-config-file", "", "File with webhook configuration for token authentication in kubeconfig format. The API server will query the remote service to determine authentication for bearer tokens.")
	f.StringVar(&cfg.AuthenticationTokenWebhookVersion, "authentication-token-webhook-version", cfg.AuthenticationTokenWebhookVersion, "The API version of the authentication.k8s.io TokenReview to send to and expect from the webhook.")
	f.DurationVar(&cfg.AuthenticationTokenWebhookCacheTTL, "authentication-token-webhook-cache-ttl", cfg.AuthenticationTokenWebhookCacheTTL, "The duration to cache responses from the webhook token authenticator.")
	f.StringVar(&cfg.TokenAuthFile, "token-auth-file", "", "If set, the file that will be used to secure the secure port of the API server via token authentication.")
	f.BoolVar(&cfg.AnonymousAuth, "anonymous-auth", cfg.AnonymousAuth, "Enables anonymous requests to the secure port of the API server. Requests that are not rejected by another authentication method are treated as anonymous requests. Anonymous requests have a username of system:anonymous, and a group name of system:unauthenticated.")
	f.StringSliceVar(&cfg.AuthorizationModes, "authorization-mode", cfg.AuthorizationModes, "Ordered list of plug-ins to do authorization on secure port. Defaults to Node,RBAC if --authorization-config is not used. Comma-delimited list of: AlwaysAllow,AlwaysDeny,ABAC,Webhook,RBAC,Node.")
	f.StringVar(&cfg.AuthorizationConfigFile, "authorization-config", "", "File with Authorization Configuration to configure the authorizer chain. This flag is mutually exclusive with the other --authorization-mode and --authorization-webhook-* flags.")
	f.StringVar(&cfg.AuthorizationPolicyFile, "authorization-policy-file", "", "File with authorization policy in json line by line format, used with --authorization-mode=ABAC, on the secure port.")
	f.StringVar(&cfg.AuthorizationWebhookConfigFile, "authorization-webhook-config-file", "", "File with webhook configuration in kubeconfig format, used with --authorization-mode=Webhook.")
	f.StringVar(&cfg.AuthorizationWebhookVersion, "authorization-webhook-version", cfg.AuthorizationWebhookVersion, "The API version of the authorization.k8s.io SubjectAccessReview to send to and expect from the webhook.")
	f.DurationVar(&cfg.AuthorizationWebhookCacheAuthorizedTTL, "authorization-webhook-cache-authorized-ttl", cfg.AuthorizationWebhookCacheAuthorizedTTL, "The duration to cache 'authorized' responses from the webhook authorizer.")
	f.DurationVar(&cfg.AuthorizationWebhookCacheUnauthorizedTTL, "authorization-webhook-cache-unauthorized-ttl", cfg.AuthorizationWebhookCacheUnauthorizedTTL, "The duration to cache 'unauthorized' responses from the webhook authorizer.")
	f.Var(newGatesValue(&cfg.FeatureGates), "feature-gates", "A set of key=value pairs that describe feature gates for alpha/experimental features, with or without kube-apiserver's \"kube:\" prefix. Options are:\n"+
		"kube:DRANodeAllocatableResources=true|false (ALPHA - default=false)\n"+
		"kube:GenericWorkload=true|false (BETA - default=false)\n"+
		"kube:ManifestBasedAdmissionControlConfig=true|false (BETA - default=true)\n"+
		"kube:PodLevelResources=true|false (BETA - default=true)\n"+
		"kube:PodLevelResourcesFixKubeletQOSClass=true|false (BETA - default=true)\n"+
		"kube:PodTopologyLabelsAdmission=true|false (BETA - default=true)\n"+
		"kube:RemoteRequestHeaderUID=true|false (BETA - default=true)\n"+
		"kube:ServiceAccountNodeAudienceRestriction=true|false (BETA - default=true)")
}

// finishChainFlags records in cfg which chain flags were given, for the
// checks that depend on it.
func finishChainFlags(f *pflag.FlagSet, cfg *server.Config) {
	cfg.AnonymousAuthSet = f.Changed("anonymous-auth")
	f.Visit(func(fl *pflag.Flag) {
		cfg.OIDC.Set = cfg.OIDC.Set || strings.HasPrefix(fl.Name, "oidc-")
	})
	for _, name := range []string{"authorization-mode", "authorization-webhook-config-file", "authorization-webhook-version",
		"authorization-webhook-cache-authorized-ttl", "authorization-webhook-cache-unauthorized-ttl"} {
		cfg.AuthorizationFlagsSet = cfg.AuthorizationFlagsSet || f.Changed(name)
	}
}

func newVersion() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			v := version.Info()
			fmt.Fprintf(cmd.OutOrStdout(), "portcullis %s (Kubernetes API %s, %s, %s)\n", version.Portcullis, v.GitVersion, v.GoVersion, v.Platform)
		},
	}
}

// gatesValue parses --feature-gates (key=value pairs, comma-separated).
type gatesValue struct{ m *map[string]bool }

func newGatesValue(m *map[string]bool) *gatesValue { return &gatesValue{m: m} }

func (g *gatesValue) String() string {
	if g.m == nil || len(*g.m) == 0 {
		return ""
	}
	pairs := make([]string, 0, len(*g.m))
	for k, v := range *g.m {
		pairs = append(pairs, k+"="+strconv.FormatBool(v))
	}
	slices.Sort(pairs)
	return strings.Join(pairs, ",")
}
func (g *gatesValue) Type() string { return "mapStringBool" }

func (g *gatesValue) Set(s string) error {
	if *g.m == nil {
		*g.m = map[string]bool{}
	}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("missing bool value for %s", kv)
		}
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("invalid value of %s=%s, err: %w", k, v, err)
		}
		// kube-apiserver 1.37 names its gates "kube:<name>" and accepts both.
		(*g.m)[strings.TrimPrefix(strings.TrimSpace(k), "kube:")] = b
	}
	return nil
}
