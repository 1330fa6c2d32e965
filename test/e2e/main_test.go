package e2e

import (
	"flag"
	"testing"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

// parallel is how many tests run at once unless -parallel says otherwise.
// Each test runs its own server and mostly waits on it and on kubectl, so
// more of them than cores keep the machine busy without starving anyone.
const parallel = "4"

func TestMain(m *testing.M) {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", parallel)
	}
	harness.Main(m)
}
