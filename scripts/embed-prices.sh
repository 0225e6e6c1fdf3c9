#!/bin/sh
# Embed the price table (data/gpu-prices.csv, docs/prices.md) into the binary
# as one C string literal, line by line.
f=$1
[ -f "$f" ] || { echo "embed-prices: $f: no such file" >&2; exit 1; }
sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$/\\n"/' "$f"
