package serviceaccount

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// checkBound asks the getter whether the service account and the bound
// object of a token still exist with the UIDs it names. Objects deleted
// less than a leeway ago still count, as pods in their grace period do.
func (a *Authenticator) checkBound(ctx context.Context, pc *privateClaims, now time.Time) (identity, error) {
	cutoff := now.Add(-leeway)
	ns, sa := pc.Namespace, pc.ServiceAccount
	acct, err := a.getter.GetServiceAccount(ctx, ns, sa.Name)
	if err == nil && acct == nil {
		err = notFound("serviceaccounts", sa.Name)
	}
	if err != nil {
		return identity{}, err
	}
	if string(acct.UID) != sa.UID {
		return identity{}, rejected(ErrUIDMismatch, "service account UID (%s) does not match claim (%s)", acct.UID, sa.UID)
	}
	if deletedBefore(acct.DeletionTimestamp, cutoff) {
		return identity{}, rejected(ErrServiceAccountDeleted, "service account %s/%s has been deleted", ns, sa.Name)
	}
	id := identity{Namespace: ns, Name: sa.Name, UID: sa.UID}

	if r := pc.Secret; r != nil {
		s, err := a.getter.GetSecret(ctx, ns, r.Name)
		if err != nil || s == nil {
			return identity{}, ErrInvalidated
		}
		if string(s.UID) != r.UID {
			return identity{}, rejected(ErrUIDMismatch, "secret UID (%s) does not match service account secret ref claim (%s)", s.UID, r.UID)
		}
		if deletedBefore(s.DeletionTimestamp, cutoff) {
			return identity{}, ErrInvalidated
		}
	}
	if r := pc.Pod; r != nil {
		p, err := a.getter.GetPod(ctx, ns, r.Name)
		if err != nil || p == nil {
			return identity{}, ErrInvalidated
		}
		if string(p.UID) != r.UID {
			return identity{}, rejected(ErrUIDMismatch, "pod UID (%s) does not match service account pod ref claim (%s)", p.UID, r.UID)
		}
		if deletedBefore(p.DeletionTimestamp, cutoff) {
			return identity{}, ErrInvalidated
		}
		id.PodName, id.PodUID = r.Name, r.UID
	}
	if r := pc.Node; r != nil {
		if pc.Pod == nil {
			// Only a node-bound token depends on the node; for a pod-bound
			// one the node is information, and the pod was checked.
			n, err := a.getter.GetNode(ctx, r.Name)
			if err != nil || n == nil {
				return identity{}, ErrInvalidated
			}
			if string(n.UID) != r.UID {
				return identity{}, rejected(ErrUIDMismatch, "node UID (%s) does not match service account node ref claim (%s)", n.UID, r.UID)
			}
			if deletedBefore(n.DeletionTimestamp, cutoff) {
				return identity{}, ErrInvalidated
			}
		}
		id.NodeName, id.NodeUID = r.Name, r.UID
	}
	return id, nil
}

func deletedBefore(ts *metav1.Time, cutoff time.Time) bool {
	return ts != nil && ts.Time.Before(cutoff)
}

func notFound(resource, name string) error {
	return apierrors.NewNotFound(schema.GroupResource{Resource: resource}, name)
}
