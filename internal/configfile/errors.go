package configfile

import "errors"

var (
	// ErrEmpty is a configuration file with nothing but white space,
	// which Type.Decode leaves to the caller: some components refuse it,
	// others read it as an empty configuration.
	ErrEmpty = errors.New("configuration file is empty")
	// ErrRetry marks an Apply error worth retrying with the same content
	// (a plugin or issuer that is not ready yet); other errors wait for
	// new content.
	ErrRetry = errors.New("retry")
	// ErrUnchanged is what Apply returns for new content that makes no
	// difference to the configuration in use (formatting, comments): the
	// content counts as seen, and neither a reload nor a failure is
	// recorded.
	ErrUnchanged = errors.New("configuration unchanged")
)
