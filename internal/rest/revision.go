package rest

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/portcullis/portcullis/internal/objects"
)

// waitForRevision waits up to three seconds, as kube-apiserver's watch
// cache does, for the store to reach rev; later gives "Too large resource version".
func (h *Handler) waitForRevision(ctx context.Context, rev int64) error {
	deadline := time.Now().Add(3 * time.Second)
	for {
		cur, _, err := h.store.Revision(ctx)
		if err != nil {
			return objects.StorageError(err, metav1.SchemeGroupVersion.WithResource("").GroupResource(), "")
		}
		if cur >= rev {
			return nil
		}
		if time.Now().After(deadline) {
			return tooLargeRVCurrent(rev, cur)
		}
		select {
		case <-ctx.Done():
			return apierrors.NewTimeoutError(ctx.Err().Error(), 1)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func tooLargeRV(rev int64) error { return tooLargeRVCurrent(rev, -1) }

func tooLargeRVCurrent(rev, cur int64) error {
	msg := fmt.Sprintf("Too large resource version: %d", rev)
	if cur >= 0 {
		msg = fmt.Sprintf("Too large resource version: %d, current: %d", rev, cur)
	}
	err := apierrors.NewTimeoutError(msg, 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
	return err
}
