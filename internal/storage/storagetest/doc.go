// Package storagetest is the conformance suite every storage.Store
// implementation runs unchanged, plus shared benchmarks.
//
// # Using it
//
// A backend's test calls Run with a constructor that returns a fresh, empty
// store for each subtest and registers its own cleanup (closing the store,
// and checking the backend's invariants if it has any):
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, func(t *testing.T) storage.Store { ... })
//	}
//
// Benchmarks work the same way through Bench or the individual Bench*
// helpers.
//
// # Assumptions
//
// The suite never assumes a store starts at revision 0: it reads the current
// revision first and checks every later revision relative to it. It does
// assume that nothing else writes to the store while a subtest runs, because
// it checks that each successful write advances the revision by exactly one.
// Subtests may Close the store; Close must therefore be idempotent.
//
// Contract points the interface leaves open and this suite pins down:
// Update with expectedRevision 0 is a conflict (only Delete treats 0 as
// unconditional); Compact at or below the compacted revision is a no-op and
// above the current revision is ErrFutureRevision; List StartKey is
// inclusive, so callers resume after key k with k+"\x00"; every call on an
// already canceled context fails with context.Canceled and writes nothing.
//
// Because Watch treats revision 0 as "from now", tests that replay from the
// start of a store still at revision 0 first write the key "/~start". The
// suite writes under many top-level prefixes: a backend sharing one keyspace
// between stores must give each store its own namespace.
package storagetest
