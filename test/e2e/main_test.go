package e2e

import (
	"testing"

	"github.com/portcullis/portcullis/test/e2e/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }
