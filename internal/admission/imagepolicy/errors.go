package imagepolicy

import "errors"

var (
	// ErrConfig marks a configuration the plugin cannot be built from.
	ErrConfig = errors.New("ImagePolicyWebhook configuration")
	// ErrNoConfig is the plugin enabled without a configuration, in
	// kube-apiserver's words.
	ErrNoConfig = errors.New("no config specified")
)
