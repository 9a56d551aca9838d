#!/bin/bash
# install-go-ycsb: builds go-ycsb (github.com/pingcap/go-ycsb, the version below) into DEST from
# the Go module proxy, outside rumbench's module (go-ycsb is not one of rumbench's dependencies).
# `go install module@version` refuses go-ycsb: its go.mod has a replace directive; so the module
# is downloaded and built as the main module of a temporary copy, its replace applied.
#
# Usage: tools/vs-ycsb/install-go-ycsb.sh [DEST (bin/go-ycsb)]
set -euo pipefail
VERSION=v1.0.3
DEST=${1:-bin/go-ycsb}
GO=${GO:-go}
dir=$(GOFLAGS=-mod=mod "$GO" mod download -json "github.com/pingcap/go-ycsb@$VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[ -n "$dir" ] || { echo "install-go-ycsb: go mod download github.com/pingcap/go-ycsb@$VERSION failed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$dir/." "$tmp"
chmod -R u+w "$tmp"
mkdir -p "$(dirname "$DEST")"
out=$(realpath -m "$DEST")
(cd "$tmp" && GOFLAGS=-mod=mod "$GO" build -o "$out" ./cmd/go-ycsb)
echo "go-ycsb $VERSION: $DEST"
