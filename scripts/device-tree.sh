#!/usr/bin/env bash
# The device calls carry the checkout's tracked and untracked-not-ignored files (64 MiB a
# call in all, carried paths included); the GPU machine needs only kernels/ and scripts/
# (the binary travels as bin/rooftool.xz in `carry`). Run from the repository root:
#   scripts/device-tree.sh on    # the index keeps kernels/ and scripts/ alone (about 1.5 MB),
#                                # the rest ignored through .git/info/exclude; needs a clean tree
#   scripts/device-tree.sh off   # the index back as HEAD has it, the excludes removed
# Nothing on disk changes either way; commit nothing while it is on.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
EX=$(git rev-parse --git-path info/exclude)
case "${1:-}" in
on)
  git diff --quiet && git diff --cached --quiet || { echo "device-tree: commit first" >&2; exit 2; }
  grep -q '^# device-tree-begin' "$EX" 2>/dev/null && { echo "device-tree: already on" >&2; exit 2; }
  mapfile -t ents < <(git ls-files | cut -d/ -f1 | sort -u | grep -v -x -e kernels -e scripts)
  mkdir -p "$(dirname "$EX")"
  { echo "# device-tree-begin"; printf '/%s\n' "${ents[@]}"; echo "# device-tree-end"; } >> "$EX"
  git rm -r -q --cached -- "${ents[@]}"
  echo "device-tree: $(git ls-files -z | du -cb --files0-from=- | tail -1 | cut -f1) bytes tracked for the call" ;;
off)
  git reset -q
  sed -i '/^# device-tree-begin/,/^# device-tree-end/d' "$EX"
  echo "device-tree: index restored" ;;
*)
  echo "usage: $0 on|off" >&2; exit 2 ;;
esac
