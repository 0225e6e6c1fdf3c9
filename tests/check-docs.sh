#!/bin/sh
echo "check-docs.sh: not yet"
