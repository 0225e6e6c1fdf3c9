#!/bin/sh
# SPDX-License-Identifier: MIT
# The rules of scripts/check-layers.sh can fail: each case plants one
# breach in a copy of src/ and wants status 1 and the rule's message; the
# clean copy must pass.  Run by `make check-layers`.
cd "$(dirname "$0")/../.." || exit 2
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0
fail=0

# case NAME WANT_RC WANT_TEXT FILE LINE: append LINE to FILE in a fresh copy
case_() {
	name=$1 want_rc=$2 want=$3 file=$4 line=$5
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t"
	cp -R src "$tmp/t/src"
	[ -n "$file" ] && printf '%s\n' "$line" >>"$tmp/t/$file"
	out=$(sh scripts/check-layers.sh "$tmp/t" 2>&1)
	rc=$?
	if [ "$rc" -eq "$want_rc" ] && printf '%s\n' "$out" | grep -q -- "$want"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL $name: status $rc (want $want_rc), output without \"$want\":"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
}

case_ clean 0 'no include cycles' '' ''
case_ two-file-cycle 1 'include cycle: src/analysis/model -> src/analysis/analysis -> src/analysis/model' \
	src/analysis/model.h '#include "analysis/analysis.h"'
case_ three-file-cycle 1 'include cycle: .*src/formats/reader' \
	src/formats/reader.h '#include "formats/driver.h"'
case_ driver-includes-format-header 1 'formats/smi.h": the driver names no format' \
	src/formats/driver_chunk.c '#include "formats/smi.h"'
case_ driver-includes-fmt-file 1 'the driver names no format' \
	src/formats/driver_prepass.c '#include "formats/fmt_kineto.h"'
case_ driver-names-symbol 1 'names format_smi_query: the driver names no format' \
	src/formats/driver.c 'static const void *p = &format_smi_query;'
case_ driver-names-id 1 'names format "smi-dmon"' \
	src/formats/driver_time.c 'static const char *id = "smi-dmon";'
case_ layer-breach 1 'layer formats may not include analysis' \
	src/formats/driver_merge.c '#include "analysis/model.h"'
# writers do not compute (issue 30): a writer calling a compute function,
# a new writer file that sorts, and the compute step itself, which may
case_ writer-computes 1 'markdown.c:[0-9]*: a writer calls gpu_util_mean()' \
	src/report/markdown.c 'static double planted(const struct gpu_stats *g) { return gpu_util_mean(g); }'
case_ new-writer-sorts 1 'yaml.c:1: a writer calls qsort()' \
	src/report/yaml.c 'void yaml_sort(int *v, unsigned long n, int (*c)(const void *, const void *)) { qsort(v, n, sizeof(*v), c); }'
# a writer grouping the findings by scanning them again inside a scan of
# them (text.c's rest of the findings before report_compute grouped them)
case_ writer-nested-scan 1 'html.c:[0-9]*: a writer loops over nfinds inside a loop over it' \
	src/report/html.c "$(printf 'static size_t planted(const struct analysis *an)\n{\n\tsize_t n = 0;\n\tfor (size_t g = 0; g < an->nfinds; g++)\n\t\tfor (size_t k = g; k < an->nfinds; k++)\n\t\t\tn += an->finds[k].severity == an->finds[g].severity;\n\treturn n;\n}')"
case_ compute-may-compute 0 'writers do not compute' \
	src/report/report.c 'static double planted(const struct gpu_stats *g) { return gpu_util_mean(g); }'

echo "check-layers planted: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
