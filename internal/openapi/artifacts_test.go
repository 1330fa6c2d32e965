package openapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

// TestArtifacts checks what the first request builds: every document
// (v2, the v3 index and each v3 group-version) decompresses to JSON whose
// SHA-256 is its hash (the ETag and the ?hash= of its URL), large ones are
// kept compressed, and the index points at every group-version with its
// current hash. BenchmarkRender measures the build and reports the sizes.
func TestArtifacts(t *testing.T) {
	for name, d := range map[string]*Documents{"built-in": newTestDocuments(t), "custom": newCustomDocuments(t, "crontab.yaml", "instance.yaml")} {
		t.Run(name, func(t *testing.T) { checkArtifacts(t, d) })
	}
}

func checkArtifacts(t *testing.T, d *Documents) {
	b, err := d.build()
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, a artifact) {
		t.Helper()
		plain, err := a.plain()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !json.Valid(plain) {
			t.Errorf("%s: not JSON", name)
		}
		sum := sha256.Sum256(plain)
		if want := strings.ToUpper(hex.EncodeToString(sum[:])); a.hash != want {
			t.Errorf("%s: hash %s, want the SHA-256 of the document %s", name, a.hash, want)
		}
		if len(plain) > 64<<10 && len(a.gz)*4 > len(plain) {
			t.Errorf("%s: %d bytes kept as %d compressed, want at most a quarter", name, len(plain), len(a.gz))
		}
	}
	check("v2", mustV2(b))
	check("v3 index", b.index)
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(mustPlain(b.index), &index); err != nil {
		t.Fatal(err)
	}
	if len(index.Paths) != len(b.gvs) || len(b.gvs) == 0 {
		t.Errorf("the v3 index lists %d group-versions, %d are built", len(index.Paths), len(b.gvs))
	}
	for key, g := range b.gvs {
		check("v3 "+key, g.json)
		if got, want := index.Paths[key].ServerRelativeURL, serverRelativeURL(key, g.json.hash); got != want {
			t.Errorf("v3 index entry of %s: %q, want %q", key, got, want)
		}
	}
}
