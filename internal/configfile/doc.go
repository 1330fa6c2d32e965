// Package configfile follows a configuration file that kube-apiserver
// reloads automatically: it notices changes (by file events and by
// polling), hands new content to the component once, and records the
// reload metrics every such controller has
// (apiserver_<controller>_automatic_reloads_total and friends).
package configfile
