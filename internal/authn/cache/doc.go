// Package cache remembers token authentication results for a short time,
// so that a client sending the same bearer token on every request pays
// for signature verification (or a lookup) once every few seconds rather
// than on every request.
//
// # Behaviour
//
// Successful results are kept for SuccessTTL (10s by default, as
// kube-apiserver's token cache), never past the token's own exp when the
// token is a JWT. Failures are kept for FailureTTL, 0 by default (not at
// all), as kube-apiserver. Concurrent misses for one token share a single
// call to the authenticator behind the cache.
//
// # Keys and memory
//
// Entries are keyed by a SHA-256 of the token under a random per-cache
// key: the token itself is never stored, and a key seen in a heap dump
// says nothing about it. The cache is split into shards, each with its own
// lock and a bounded number of entries, so that contention stays low and
// memory stays bounded whatever clients send.
package cache
