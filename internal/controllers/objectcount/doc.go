// Package objectcount publishes how many objects of each resource the
// store holds, as kube-apiserver does every --etcd-count-metric-poll-period:
// apiserver_resource_objects{group,resource}, -1 when a count fails (its
// deprecated forerunner apiserver_storage_objects is hidden in 1.37 and
// not served). Every replica counts for itself, as every kube-apiserver
// does.
package objectcount
