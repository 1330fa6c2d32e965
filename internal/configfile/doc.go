// Package configfile follows a configuration file that kube-apiserver
// reloads automatically: it notices changes (by file events and by
// polling), hands new content to the component once, and records the
// reload metrics every such controller has
// (apiserver_<controller>_automatic_reloads_total and friends).
//
// # Pieces
//
// A Watcher reads the file at every event in its directory and every
// Interval, and calls Apply with content whose Hash differs from the
// content last acted upon. Apply decides what the content means: nil
// puts it in force (a success), ErrUnchanged says it makes no difference
// (nothing recorded), ErrRetry asks for the same content again at the
// next look (a plugin not ready yet), and any other error waits for new
// content (a failure, recorded once). Run is the loop; Check is one look,
// for components and tests that keep their own schedule.
//
// Metrics are the three series, named after the controller, with help
// texts and optional constant labels (the manifest controllers' plugin)
// supplied by the component so that each keeps kube-apiserver's wording.
package configfile
