#!/bin/sh
# Run every unit-test binary; cmocka prints each test and a closing summary.
status=0
for t in "$@"; do
	"$t" || status=1
done
exit $status
