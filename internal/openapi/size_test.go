package openapi

import (
	"testing"
	"time"
)

// TestFirstBuildTime logs what the first request pays and how large the
// documents are (go test -v -run TestFirstBuildTime). It asserts nothing
// about time: the figures depend on the machine and its load.
func TestFirstBuildTime(t *testing.T) {
	start := time.Now()
	d := newTestDocuments(t)
	t.Logf("New: %v (%d definitions, %d paths)", time.Since(start), len(d.defs), len(d.paths))
	start = time.Now()
	b, err := d.build()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first build: %v", time.Since(start))
	total, totalGz := 0, 0
	for _, g := range b.gvs {
		total += len(mustPlain(g.json))
		totalGz += len(g.json.gz)
	}
	t.Logf("v2 JSON %d bytes (%d gzipped); v3 JSON %d bytes (%d gzipped) in %d group-versions",
		len(mustPlain(b.v2)), len(b.v2.gz), total, totalGz, len(b.gvs))
	start = time.Now()
	pb, err := b.v2Proto.get(b.v2, v2ToProto)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("v2 protobuf: %d bytes in %v", len(pb), time.Since(start))
}
