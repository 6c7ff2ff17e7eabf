#!/usr/bin/env bash
# Runs a command in a temporary copy of this tree with a planted bug applied to src/ (a patch file
# here), so a real-process test can be shown to catch it without touching production paths: the
# state machine has no seam for an adapter (the simulator's planted bugs wrap parts in-process;
# a cluster of real nodes runs dist/ built from src/). The copy is this checkout's HEAD plus its
# uncommitted changes; it is removed on exit.
#   test/plants/run.sh test/plants/shared-token.patch env LOCKD_PROP_SURVEY=1 \
#     npx mocha --timeout 600000 test/lockd/api/recipe-property.test.ts
set -euo pipefail
patch=$(realpath "$1"); shift
root=$(git rev-parse --show-toplevel)
tmp=$(mktemp -d /tmp/lockd-plant.XXXXXX)
cleanup() { git -C "$root" worktree remove --force "$tmp/tree" >/dev/null 2>&1 || true; rm -rf "$tmp"; }
trap cleanup EXIT
git -C "$root" worktree add --detach -q "$tmp/tree" HEAD
(cd "$root" && git diff HEAD --binary) | (cd "$tmp/tree" && git apply --allow-empty)
ln -s "$(realpath "$root/node_modules")" "$tmp/tree/node_modules"
(cd "$tmp/tree" && git apply "$patch")
echo "planted $(basename "$patch") in $tmp/tree" >&2
cd "$tmp/tree" && "$@"
