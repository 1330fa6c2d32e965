// Package lifecycle is the NamespaceLifecycle admission plugin: objects
// may be created only in namespaces that exist and are not being deleted,
// and the system namespaces cannot be deleted.
package lifecycle
