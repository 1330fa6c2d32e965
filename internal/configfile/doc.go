// Package configfile holds what kube-apiserver's configuration files have
// in common: strict decoding, and for the files it reloads automatically,
// following them: noticing changes (by file events and by polling),
// handing new content to the component once, and recording the reload
// metrics every such controller has
// (apiserver_<controller>_automatic_reloads_total and friends).
//
// # Decoding
//
// A Type names the kind and apiVersions a file must declare; its Decode
// reads YAML or JSON into the component's published v1 type, refusing
// another type, duplicate keys, unknown fields and field names in the
// wrong case. Each component wraps the error in its own sentinel and
// defaults and validates the result itself.
//
// # Following a file
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
