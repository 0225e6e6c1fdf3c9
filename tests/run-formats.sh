#!/bin/sh
echo "run-formats.sh: not yet"
