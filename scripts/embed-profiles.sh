#!/bin/sh
# Embed profile presets (profiles/*.ini) into the binary as C strings.
# Output: PRESET("name", "ini text") lines, one per file.
for f in "$@"; do
	[ -f "$f" ] || continue
	name=$(basename "$f" .ini)
	printf 'PRESET("%s",\n' "$name"
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$/\\n"/' "$f"
	printf ')\n'
done
