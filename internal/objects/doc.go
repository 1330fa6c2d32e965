// Package objects is the object layer every other part of the server
// builds on: the registry of served resources, the scheme, the storage
// codec and typed reads of the store.
//
// It is built first, from the store alone, so that authentication,
// authorization, admission and the REST handlers can all read objects
// without depending on one another: the admission plugins that read
// namespaces, the Node authorizer's informers and the service account
// authenticator use it directly, and the REST handlers use it for every
// stored value they decode or encode.
//
// # Storage encoding
//
// Objects are stored as protobuf without their resourceVersion: the
// store's revision of a key is the resourceVersion, so keeping it inside
// the value too would only let the two disagree. Decode sets it back.
//
// # Errors
//
// Reads answer the API errors kube-apiserver answers (NotFound,
// Conflict, StorageReadError...), mapped once by StorageError, so that a
// caller can test them with apierrors.IsNotFound and the REST handlers
// can send them as they are.
//
// # Writes
//
// Writes made by the server itself (controllers, bootstrap) go through
// the whole write path of the API (defaulting, admission, validation) and
// so live with the REST handlers; each controller defines the small
// interface it needs of them.
package objects
