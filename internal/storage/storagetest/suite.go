package storagetest

import (
	"testing"

	"github.com/portcullis/portcullis/internal/storage"
)

// Run runs the conformance suite. newStore must return a fresh, empty store
// for each call and register whatever cleanup the store needs (the suite
// itself only closes stores in the subtests about closing).
func Run(t *testing.T, newStore func(t *testing.T) storage.Store) {
	tests := []struct {
		name string
		run  func(t *testing.T, s storage.Store)
	}{
		{"Create", testCreate},
		{"Get", testGet},
		{"Update", testUpdate},
		{"Delete", testDelete},
		{"DeleteUnconditional", testDeleteUnconditional},
		{"Errors", testErrors},
		{"ValuesAreCopied", testValuesAreCopied},
		{"CanceledContext", testCanceledContext},
		{"ListPrefix", testListPrefix},
		{"ListEmpty", testListEmpty},
		{"ListPastRevision", testListPastRevision},
		{"ListPagination", testListPagination},
		{"ListFutureRevision", testListFutureRevision},
		{"Compact", testCompact},
		{"CompactBounds", testCompactBounds},
		{"WatchFromNow", testWatchFromNow},
		{"WatchAfterOwnWrite", testWatchAfterOwnWrite},
		{"WatchReplay", testWatchReplay},
		{"WatchPrefix", testWatchPrefix},
		{"WatchEventShapes", testWatchEventShapes},
		{"WatchCompacted", testWatchCompacted},
		{"WatchManyWatchers", testWatchManyWatchers},
		{"WatchContextCancel", testWatchContextCancel},
		{"CloseStopsWatches", testCloseStopsWatches},
		{"CloseRejectsWrites", testCloseRejectsWrites},
		{"RevisionsIncreaseByOne", testRevisionsIncreaseByOne},
		{"ConcurrentCreates", testConcurrentCreates},
		{"ConcurrentGuardedUpdates", testConcurrentGuardedUpdates},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t, newStore(t))
		})
	}
}
