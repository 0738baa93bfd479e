#!/bin/sh
# svg-render.sh SVG PNG: headless Chromium's screenshot of SVG at the size
# its svg element gives (width and height), for tests/cli/svg-pixels.py.
set -eu
svg=$1 png=$2
w=$(sed -n 's/.*<svg [^>]*width="\([0-9.]*\)".*/\1/p' "$svg" | head -1)
h=$(sed -n 's/.*<svg [^>]*height="\([0-9.]*\)".*/\1/p' "$svg" | head -1)
[ -n "$w" ] && [ -n "$h" ] || { echo "svg-render: no width and height in $svg" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# its own profile and no sandbox (root in a container); the log only on failure
if ! timeout -k 5 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--user-data-dir="$dir/profile" --screenshot="$png" --window-size="${w%.*},${h%.*}" \
	"file://$(cd "$(dirname "$svg")" && pwd)/$(basename "$svg")" > "$dir/log" 2>&1 || [ ! -s "$png" ]; then
	echo "svg-render: chromium did not render $svg:" >&2
	tail -5 "$dir/log" >&2
	exit 1
fi
