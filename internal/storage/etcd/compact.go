package etcd

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/portcullis/portcullis/internal/storage"
)

// runCompactor is kube-apiserver's compaction protocol, so that portcullis
// and kube-apiserver replicas on one cluster compact together. The
// Version of compact_rev_key is a logical clock shared by all of them:
// each interval, a replica CASes the key from the Version it last saw,
// writing the revision it saw one interval ago, and on success compacts
// to that revision. A replica that loses the CAS adopts the winner's
// Version and tries again next interval, so about one compaction happens
// per interval whoever makes it, and a replica that dies is taken over.
func (s *Store) runCompactor(ctx context.Context, interval time.Duration) {
	var version, rev int64
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
		case <-ctx.Done():
			return
		}
		var err error
		version, rev, err = s.compactStep(ctx, version, rev)
		if err != nil && ctx.Err() == nil {
			s.opts.Logger.Error("etcd compaction failed", "err", err)
		}
		timer.Reset(interval)
	}
}

// compactStep is one round: it returns the Version and the current
// revision to use next round.
func (s *Store) compactStep(ctx context.Context, version, rev int64) (int64, int64, error) {
	resp, err := s.kv.Txn(ctx).
		If(clientv3.Compare(clientv3.Version(compactRevKey), "=", version)).
		Then(clientv3.OpPut(compactRevKey, strconv.FormatInt(rev, 10))).
		Else(clientv3.OpGet(compactRevKey)).
		Commit()
	if err != nil {
		return version, rev, fmt.Errorf("compare-and-swap of %s: %w", compactRevKey, err)
	}
	current := resp.Header.Revision
	if !resp.Succeeded {
		// Another replica compacted this round; follow its clock.
		kvs := resp.Responses[0].GetResponseRange().Kvs
		if len(kvs) == 0 {
			// Deleted under us: start the clock again from 0.
			return 0, current, nil
		}
		if done, err := strconv.ParseInt(string(kvs[0].Value), 10, 64); err == nil {
			s.noteCompacted(done)
		}
		return kvs[0].Version, current, nil
	}
	if rev == 0 {
		// The first round only starts the clock, as kube-apiserver does.
		return version + 1, current, nil
	}
	if _, err := s.kv.Compact(ctx, rev); err != nil {
		// Someone compacting further meanwhile is no failure.
		if err := s.fail(ctx, "compact", err); !errors.Is(err, storage.ErrCompacted) {
			return version + 1, current, fmt.Errorf("compact to %d: %w", rev, err)
		}
	}
	s.noteCompacted(rev)
	s.opts.Logger.Debug("etcd compacted", "revision", rev)
	return version + 1, current, nil
}
