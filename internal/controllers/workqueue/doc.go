// Package workqueue is the controllers' queue of keys to sync: each key
// at most once in the queue, in arrival order, synced one at a time, and
// a key whose sync fails queued again after a delay that doubles from
// 5 ms to 1000 s (kube-controller-manager's default per-item limit).
package workqueue
