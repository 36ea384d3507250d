#!/usr/bin/env bash
# Brings this copy to another release of github.com/alicebob/miniredis/v2
# and re-applies locksim's change (locksim.patch) to it.
#
#   internal/miniredis/update.sh v2.41.0
#
# It replaces every upstream file (tests and the integration package left
# out), rewrites the imports to this path, keeps the rewritten upstream
# copy of every file the patch changes as upstream/<file>.orig (what the
# patch applies to), and applies the patch; a hunk that no longer applies stops
# it with patch's own message. Then run: go test ./internal/miniredis/ ./sim/
set -euo pipefail
cd "$(dirname "$0")"
version=${1:?usage: update.sh vX.Y.Z (a release of github.com/alicebob/miniredis/v2)}
src=$(go mod download -json "github.com/alicebob/miniredis/v2@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$src" ] || { echo "update.sh: could not download miniredis $version" >&2; exit 1; }
find . -name '*.go' ! -name 'locksim_*' -delete
(cd "$src" && find . -name '*.go' ! -name '*_test.go' ! -path './integration/*' -print0) |
  while IFS= read -r -d '' f; do
    mkdir -p "$(dirname "$f")"
    sed 's#github.com/alicebob/miniredis/v2#github.com/locksim/locksim/internal/miniredis#g' "$src/$f" > "$f"
  done
cp "$src/LICENSE" "$src/README.md" "$src/CHANGELOG.md" .
chmod -R u+w .
gofmt -w .
for f in $(sed -n 's#^+++ b/\([^[:space:]]*\).*#\1#p' locksim.patch); do
  mkdir -p "upstream/$(dirname "$f")"
  cp "$f" "upstream/$f.orig"
done
patch -p1 < locksim.patch
echo "miniredis $version with locksim.patch applied; now run: go test ./internal/miniredis/ ./sim/"
