#!/usr/bin/env bash
# Builds the oracle of the differential suite (docs/conformance.md) from
# the Go module proxy: kube-apiserver v1.37.2, etcd v3.7.3 and kubectl
# v1.37.2, and on request kube-controller-manager and kube-scheduler.
#
#   hack/reference/build.sh                       # etcd kubectl kube-apiserver
#   hack/reference/build.sh kube-controller-manager kube-scheduler
#
# Binaries go to $PORTCULLIS_REFERENCE_BIN (default
# ${XDG_CACHE_HOME:-~/.cache}/portcullis-reference/bin), never into the
# repository; one already there is kept unless FORCE=1. The first build
# takes 15-40 minutes on two cores, most of it kube-apiserver.
#
# Each binary is built in a scratch module that requires k8s.io/kubernetes
# at K8S_VERSION with its staging modules (required there as v0.0.0)
# replaced by their published versions, and the upstream main package file.
set -euo pipefail
K8S_VERSION=${K8S_VERSION:-v1.37.2}
ETCD_VERSION=${ETCD_VERSION:-v3.7.3}
STAGING=v0.${K8S_VERSION#v1.}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/portcullis-reference
BIN=${PORTCULLIS_REFERENCE_BIN:-$CACHE/bin}
WORK=$CACHE/src
export GOFLAGS="-mod=mod" CGO_ENABLED=0
mkdir -p "$BIN" "$WORK"

say() { echo "hack/reference: $*" >&2; }

# The version stamps a release build carries, so /version answers as the
# real v1.37.2 does.
ver=${K8S_VERSION#v}
ldflags="-s -w"
for pkg in k8s.io/client-go/pkg/version k8s.io/component-base/version; do
	ldflags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=${ver%%.*}"
	ldflags+=" -X $pkg.gitMinor=$(cut -d. -f2 <<<"$ver") -X $pkg.gitTreeState=clean"
done

present() {
	if [[ ${FORCE:-0} != 1 && -x $BIN/$1 ]]; then
		say "$1: already in $BIN"
		return 0
	fi
	return 1
}

# scratch NAME: an empty module directory for NAME.
scratch() {
	local d=$WORK/$1
	rm -rf "$d" && mkdir -p "$d"
	(cd "$d" && go mod init "reference.local/$1" >/dev/null 2>&1 && go mod edit -go=1.26.0)
	echo "$d"
}

kubernetes_dir() {
	(cd "$WORK" && go mod download -json "k8s.io/kubernetes@$K8S_VERSION") | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p'
}

# component NAME MAINFILE: a command of k8s.io/kubernetes (cmd/NAME/MAINFILE).
component() {
	present "$1" && return
	local k d start=$SECONDS
	k=$(kubernetes_dir)
	d=$(scratch "$1")
	install -m 0644 "$k/cmd/$1/$2" "$d/main.go"
	local staged
	staged=$(awk '/^require \(/{req=1; next} req && /^\)/{req=0} req && $1 ~ /^k8s\.io\// && $2 == "v0.0.0" {print $1}' "$k/go.mod")
	for m in $staged; do
		(cd "$d" && go mod edit -replace "$m=$m@$STAGING")
	done
	(cd "$d" && go mod edit -require "k8s.io/kubernetes@$K8S_VERSION" && go mod tidy)
	say "$1: building"
	(cd "$d" && go build -trimpath -ldflags "$ldflags" -o "$BIN/$1.new" .)
	mv "$BIN/$1.new" "$BIN/$1"
	say "$1: done in $((SECONDS - start)) s"
}

kubectl() {
	present kubectl && return
	local k d
	k=$(kubernetes_dir)
	d=$(scratch kubectl)
	install -m 0644 "$k/cmd/kubectl/kubectl.go" "$d/main.go"
	(cd "$d" && go mod edit -require "k8s.io/kubectl@$STAGING" && go mod tidy)
	(cd "$d" && go build -trimpath -ldflags "$ldflags" -o "$BIN/kubectl.new" .)
	mv "$BIN/kubectl.new" "$BIN/kubectl"
}

etcd() {
	present etcd && return
	local d
	d=$(scratch etcd)
	(cd "$d" && go get -tool "go.etcd.io/etcd/server/v3@$ETCD_VERSION")
	(cd "$d" && go build -trimpath -ldflags "-s -w" -o "$BIN/etcd.new" go.etcd.io/etcd/server/v3)
	mv "$BIN/etcd.new" "$BIN/etcd"
}

for target in ${*:-etcd kubectl kube-apiserver}; do
	case $target in
	kube-apiserver) component kube-apiserver apiserver.go ;;
	kube-controller-manager) component kube-controller-manager controller-manager.go ;;
	kube-scheduler) component kube-scheduler scheduler.go ;;
	kubectl) kubectl ;;
	etcd) etcd ;;
	*) say "unknown binary $target (kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, etcd)"; exit 2 ;;
	esac
done
for b in etcd kube-apiserver kubectl kube-controller-manager kube-scheduler; do
	[[ -x $BIN/$b ]] && say "$b: $BIN/$b"
done
exit 0
