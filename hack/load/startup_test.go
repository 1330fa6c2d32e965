package main

import (
	"strings"
	"testing"
)

func TestWaitReadyLine(t *testing.T) {
	tests := []struct {
		name                string
		log                 string
		address, kubeconfig string
		wantErr             bool
	}{
		{
			name:       "plain",
			log:        "level=INFO msg=starting\nlevel=INFO msg=\"portcullis is ready\" address=https://127.0.0.1:6443 kubeconfig=/d/admin.kubeconfig startup=90ms\n",
			address:    "https://127.0.0.1:6443",
			kubeconfig: "/d/admin.kubeconfig",
		},
		{
			name:       "quoted path",
			log:        `level=INFO msg="portcullis is ready" address=https://127.0.0.1:1 kubeconfig="/a b/admin.kubeconfig"` + "\n",
			address:    "https://127.0.0.1:1",
			kubeconfig: "/a b/admin.kubeconfig",
		},
		{name: "exits first", log: "level=ERROR msg=\"bad flag\"\n", wantErr: true},
		{name: "no address", log: `msg="portcullis is ready" kubeconfig=/k` + "\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			address, kubeconfig, _, err := waitReadyLine(strings.NewReader(tt.log))
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %t", err, tt.wantErr)
			}
			if address != tt.address || kubeconfig != tt.kubeconfig {
				t.Errorf("got %q %q, want %q %q", address, kubeconfig, tt.address, tt.kubeconfig)
			}
		})
	}
}
