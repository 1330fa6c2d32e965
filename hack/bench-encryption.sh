#!/usr/bin/env bash
# Measures create and get of 1 KiB Secrets over HTTPS with each encryption
# provider (identity, aesgcm, aescbc, secretbox, KMS v2 with the test
# plugin), as recorded in docs/performance.md. Usage: hack/bench-encryption.sh [clients] [duration]
set -euo pipefail
clients=${1:-8}
duration=${2:-5s}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/encbench.XXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$root"
go build -o "$work/portcullis" ./cmd/portcullis
go build -o "$work/load" ./hack/load
go build -o "$work/kmsplugin" ./test/kmsplugin
"$work/kmsplugin" --listen "unix://$work/kms.sock" 2>"$work/kms.log" &
key=$(head -c 32 /dev/urandom | base64)

provider() {
  case $1 in
    identity) echo "  - identity: {}" ;;
    aesgcm | aescbc | secretbox) printf '  - %s:\n      keys:\n      - name: key1\n        secret: %s\n' "$1" "$key" ;;
    kmsv2) printf '  - kms:\n      apiVersion: v2\n      name: bench\n      endpoint: unix://%s/kms.sock\n' "$work" ;;
  esac
}

for p in identity aesgcm aescbc secretbox kmsv2; do
  cfg="$work/$p.yaml"
  printf 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n  providers:\n%s\n' "$(provider $p)" >"$cfg"
  data="$work/data-$p"
  "$work/portcullis" serve --data-dir "$data" --secure-port 0 --encryption-provider-config "$cfg" 2>"$work/$p.log" &
  pid=$!
  until grep -q "portcullis is ready" "$work/$p.log"; do sleep 0.1; done
  echo "== $p"
  "$work/load" -kubeconfig "$data/admin.kubeconfig" -kind secrets -size 1024 -clients "$clients" -duration "$duration" -op create | tail -n +2
  "$work/load" -kubeconfig "$data/admin.kubeconfig" -kind secrets -size 1024 -clients "$clients" -duration "$duration" -op get | tail -n +2
  kill "$pid"; wait "$pid" || true
done
