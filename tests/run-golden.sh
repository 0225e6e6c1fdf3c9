#!/bin/sh
echo "run-golden.sh: not yet"
