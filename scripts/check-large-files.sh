#!/usr/bin/env bash
# Fails when a tracked file is over 1 MiB and not listed in
# scripts/large-files.txt (one path per line): build outputs and binaries
# must not enter the repository by accident.
set -euo pipefail
cd "$(dirname "$0")/.."
limit=$((1 << 20))
allowed=scripts/large-files.txt
bad=0
while IFS= read -r -d '' f; do
  [ -f "$f" ] && [ ! -L "$f" ] || continue
  size=$(stat -c %s "$f")
  if [ "$size" -gt "$limit" ] && ! grep -qxF "$f" "$allowed" 2>/dev/null; then
    echo "large file: $f is $size bytes (over 1 MiB); remove it, or list it in $allowed if it must be tracked" >&2
    bad=1
  fi
done < <(git ls-files -z)
exit $bad
