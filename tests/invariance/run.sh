#!/bin/sh
# SPDX-License-Identifier: MIT
# The invariance tier (issue 28): see invariance.py.  usage: run.sh BIN
set -eu
BIN=$1
T=$(mktemp -d "${TMPDIR:-/tmp}/gputally-inv.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
python3 "$(dirname "$0")/invariance.py" "$BIN" "$T/work"
