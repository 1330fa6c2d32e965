// Package informer keeps in-process consumers (the RBAC and Node
// authorizers, controllers) current with the objects of a resource: it lists
// the resource's prefix, hands every object to a Handler, then follows the
// store's watch. When the watch ends (the consumer fell behind, or history
// was compacted) it lists again and reports what changed meanwhile,
// including deletions, so a consumer never misses a change for long.
package informer
