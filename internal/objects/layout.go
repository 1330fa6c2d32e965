package objects

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/portcullis/portcullis/internal/storage"
)

// MoveLegacyKeys moves the objects that an earlier portcullis stored
// outside kube-apiserver's etcd layout (registry.LegacyMoves) to their
// keys in it, and returns how many it moved. It must run before the
// server serves: a move is a create of the new key then a delete of the
// old one, each durable, so a crash between the two leaves a copy that
// the next run removes; nothing is lost. Values are moved through the
// store the object layer reads, so that encryption bound to the key is
// decrypted under the old key and encrypted anew under the new one.
func (o *Objects) MoveLegacyKeys(ctx context.Context) (int, error) {
	moved := 0
	for _, m := range o.reg.LegacyMoves() {
		segments := 1
		if m.Resource.Namespaced {
			segments = 2
		}
		start := ""
		for {
			page, err := o.store.List(ctx, m.From, storage.ListOptions{StartKey: start, Limit: 500})
			if err != nil {
				return moved, fmt.Errorf("moving %s from %s: %w", m.Resource.GroupResource(), m.From, err)
			}
			for _, kv := range page.KVs {
				rest := kv.Key[len(m.From):]
				if strings.Count(rest, "/") != segments-1 {
					// A key of the current layout below the old prefix
					// (services/specs/<ns>/<name> below services/).
					continue
				}
				if err := o.moveKey(ctx, kv, m.Resource.KeyPrefix()+rest); err != nil {
					return moved, fmt.Errorf("moving %s: %w", kv.Key, err)
				}
				moved++
			}
			if !page.More || len(page.KVs) == 0 {
				break
			}
			start = page.KVs[len(page.KVs)-1].Key + "\x00"
		}
	}
	return moved, nil
}

// moveKey writes kv's value at key, unless an earlier, interrupted move
// already did, then deletes kv if it is unchanged.
func (o *Objects) moveKey(ctx context.Context, kv storage.KeyValue, key string) error {
	if _, err := o.store.Create(ctx, key, kv.Value); err != nil && !errors.Is(err, storage.ErrKeyExists) {
		return err
	}
	if _, _, err := o.store.Delete(ctx, kv.Key, kv.ModRevision); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	return nil
}
