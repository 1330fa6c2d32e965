package version

import (
	"fmt"
	"runtime"

	apimachineryversion "k8s.io/apimachinery/pkg/version"
)

// Portcullis is the release of portcullis; set with -ldflags at build time.
var Portcullis = "0.1.0-dev"

// Kubernetes API version whose behaviour portcullis implements.
const (
	kubeMajor = "1"
	kubeMinor = "37"
	kubePatch = "2"
)

// Info returns what /version serves. The gitVersion is the Kubernetes
// version with portcullis's own in the build metadata, so clients that
// compare versions see the API level they talk to.
func Info() apimachineryversion.Info {
	return apimachineryversion.Info{
		Major:        kubeMajor,
		Minor:        kubeMinor,
		GitVersion:   fmt.Sprintf("v%s.%s.%s+portcullis-%s", kubeMajor, kubeMinor, kubePatch, Portcullis),
		GitTreeState: "clean",
		GoVersion:    runtime.Version(),
		Compiler:     runtime.Compiler,
		Platform:     runtime.GOOS + "/" + runtime.GOARCH,
	}
}
