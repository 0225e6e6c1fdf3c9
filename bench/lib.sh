# SPDX-License-Identifier: MIT
# Shared by the bench scripts (sourced, not run): medians of result files and generated inputs
# that are made once and reused while their stamp says they are current.

# Median of column COL of a result file (an odd number of runs: the middle one).
median() {
	sort -n -k"$2,$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

# Largest value of column COL of a result file.
max_col() {
	awk -v c="$2" 'NR == 1 || $c > m { m = $c } END { print m }' "$1"
}

# stamp_current FILE WANT: FILE exists and FILE.stamp holds WANT and FILE's size (a stale or
# truncated FILE is made again).
stamp_current() {
	[ -f "$1" ] && [ -f "$1.stamp" ] && [ "$(cat "$1.stamp")" = "$2 $(wc -c <"$1" | tr -d ' ')" ]
}

# stamp_write FILE WANT: record that FILE, as it is now, was made with WANT.
stamp_write() {
	printf '%s %s\n' "$2" "$(wc -c <"$1" | tr -d ' ')" >"$1.stamp"
}
