package node

import (
	"strings"

	"k8s.io/apiserver/pkg/authentication/user"
)

// nodeUserPrefix starts the user name of every node identity; the node's
// name follows it.
const nodeUserPrefix = "system:node:"

// NodeName identifies a node the way kube-apiserver does: a user named
// system:node:<nodeName> in group system:nodes. isNode is false for every
// other user, including members of system:nodes with other names (the
// "undifferentiated user names" of the migration notes); name is "" when
// the user is a node whose name is empty, which nothing may be granted to.
func NodeName(u user.Info) (name string, isNode bool) {
	if u == nil {
		return "", false
	}
	name, ok := strings.CutPrefix(u.GetName(), nodeUserPrefix)
	if !ok {
		return "", false
	}
	for _, g := range u.GetGroups() {
		if g == user.NodesGroup {
			return name, true
		}
	}
	return "", false
}
