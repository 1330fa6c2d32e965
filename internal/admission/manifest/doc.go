// Package manifest loads, validates and watches the static admission
// manifests of KEP-5793 (manifest-based admission control).
//
// Each of the four admission plugins may name a directory in its
// configuration (staticManifestsDir). This package turns such a directory
// into a Set of typed admissionregistration.k8s.io/v1 objects:
//
//   - files.go reads the direct children ending in .yaml, .yml or .json and
//     hashes their contents the way the reference does;
//   - decode.go splits documents, unwraps lists and decodes strictly;
//   - rules.go enforces the static-only restrictions (name suffix, url-only
//     webhooks, no params, bindings naming a policy of the same set);
//   - load.go ties these together into Load;
//   - watch.go re-loads on fsnotify events and on a poll, swapping the Set
//     only when the new one is valid in full, and records the reload
//     metrics (internal/configfile's, with a plugin label).
//
// The package knows nothing about how the objects are evaluated: the caller
// supplies defaulting and API validation as a function and receives each new
// Set through a callback.
package manifest
