package main

import (
	"flag"
	"os"

	"k8s.io/klog/v2"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	cmd := kubectlcmd.NewDefaultKubectlCommand()

	// The upstream binary registers klog's flags through component-base; doing
	// it directly keeps -v=N (request tracing) available for debugging tests.
	logFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(logFlags)
	cmd.PersistentFlags().AddGoFlagSet(logFlags)

	err := cmd.Execute()
	klog.Flush()
	if err != nil {
		// CheckErr prints the error the way kubectl does and exits non-zero.
		cmdutil.CheckErr(err)
	}
	os.Exit(0)
}
