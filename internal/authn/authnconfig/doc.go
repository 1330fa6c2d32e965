// Package authnconfig loads the file of --authentication-config (kind
// AuthenticationConfiguration, apiserver.config.k8s.io/v1, v1beta1 or
// v1alpha1) and serves its JWT authenticators, reloading them when the
// file changes.
//
// # Loading
//
// Load reads the file, Decode parses it strictly (unknown, duplicate and
// wrongly-cased fields are errors), Validate applies kube-apiserver's
// rules and messages with field paths and compiles every CEL expression,
// so that a bad file is refused at start-up with all its problems listed.
//
// # Serving and reloading
//
// NewAuthenticator builds the JWT authenticators; Run contacts their
// issuers and watches the file with a configfile.Watcher (fsnotify on its
// directory plus a poll every minute). A change is detected by content
// hash: an unchanged hash does nothing; a file that does not decode or
// validate is logged and the current configuration stays; a valid one is
// built, its issuers are given UpdateTimeout to answer (or it is retried
// at the next look), and it replaces the current one atomically. The
// anonymous field cannot change by reload. Metrics, as kube-apiserver:
//
//	apiserver_authentication_config_controller_automatic_reloads_total{status,apiserver_id_hash}
//	apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds{status,apiserver_id_hash}
//	apiserver_authentication_config_controller_last_config_info{apiserver_id_hash,hash}
//
// # Wiring
//
// The server assembles the authentication chain from this package and its
// siblings; kube-apiserver's order has the token file and service account
// tokens before the JWT authenticators, and one cache in front of them all:
//
//	cfg, err := authnconfig.Load(path, authnconfig.LoadOptions{DisallowedIssuers: saIssuers}) // --authentication-config, if set
//	jwts, err := authnconfig.NewAuthenticator(cfg, authnconfig.Options{...})                   // cfg may be nil
//	go jwts.Run(ctx)
//	anon, err := anonymous.Resolve(anonymousAuth, anonymousAuthSet, cfg.Anonymous())           // --anonymous-auth
//	tokens := cache.New(authn.TokenUnion{tokenFile, serviceAccounts, jwts}, cache.Options{})   // --token-auth-file via tokenfile.Load
//	chain := anonymous.WithFallback(authn.Union{x509, authn.Bearer{Token: tokens}}, anon)
package authnconfig
