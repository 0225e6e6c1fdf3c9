# Compare `gputally dump` records with the keys of an .expect file (see README.md).
# gpuN is the GPU with index N, or when records carry no index, the N-th uuid
# (or, with no uuid either, the N-th model name) seen.
function val(line, key,   i, s) {
	i = index(line, "\"" key "\":")
	if (!i) return "\001"
	s = substr(line, i + length(key) + 3)
	if (substr(s, 1, 1) == "\"") { s = substr(s, 2); sub(/".*/, "", s); return s }
	sub(/[,}].*/, "", s)
	return s
}
function near(a, b) { d = a - b; if (d < 0) d = -d; m = (b < 0 ? -b : b); return d <= 0.0005 * (m > 1 ? m : 1) }
BEGIN {
	while ((getline l < expect) > 0) {
		if (l ~ /^#/ || l !~ /=/) continue
		k = substr(l, 1, index(l, "=") - 1); v = substr(l, index(l, "=") + 1)
		want[k] = v; order[++nk] = k
	}
}
{
	kind = val($0, "kind")
	g = val($0, "gpu")
	if (g == "\001") { u = val($0, "uuid"); if (u == "\001") u = "name:" val($0, "name"); if (!(u in uid)) uid[u] = nu++; g = uid[u] }
	if (kind == "sample") {
		samples++; gs[g]++
		if (!(g in first)) first[g] = $0
		if (!(g SUBSEP "seen" in seen)) seen[g SUBSEP "seen"] = 1
		all[g] = all[g] "\n" $0
	} else if (kind == "proc") {
		procs++
		t = val($0, "t")
		if (!((g, t) in tick)) { tick[g, t] = 1; ticks[g]++ }
		if (!(g in pfirst)) pfirst[g] = $0
	} else if (kind == "bad") bad++
}
END {
	for (i = 1; i <= nk; i++) {
		k = order[i]; v = want[k]
		if (k == "samples" && samples + 0 != v) { print samples + 0 " sample records, want " v; exit }
		if (k == "procs" && procs + 0 != v) { print procs + 0 " process records, want " v; exit }
		if (k == "bad" && bad + 0 != v) { print bad + 0 " bad-line records, want " v; exit }
		if (k ~ /^ticks\.gpu/) { g = substr(k, 10); if (ticks[g] + 0 != v) { print "gpu" g ": " ticks[g] + 0 " process intervals, want " v; exit } }
		if (k ~ /^samples\.gpu/) { g = substr(k, 12); if (gs[g] + 0 != v) { print "gpu" g ": " gs[g] + 0 " samples, want " v; exit } }
		if (k ~ /^first\.gpu/) {
			split(substr(k, 7), p, "."); g = substr(p[1], 4); m = p[2]
			if (!(g in first)) { print "gpu" g ": no sample"; exit }
			got = val(first[g], m)
			if (got == "\001") { print "gpu" g " first sample: no " m ", want " v; exit }
			if (!near(got, v)) { print "gpu" g " first sample: " m " " got ", want " v; exit }
		}
		if (k ~ /^proc\.gpu/) {
			split(substr(k, 6), p, "."); g = substr(p[1], 4); m = p[2]
			got = val(pfirst[g], m)
			if (got != v && !(got ~ /^[0-9.-]+$/ && near(got, v))) { print "gpu" g " first process: " m " " got ", want " v; exit }
		}
		if (k ~ /^unknown\.gpu/) {
			g = substr(k, 12); n = split(v, ms, ",")
			for (j = 1; j <= n; j++) if (index(all[g], "\"" ms[j] "\":")) { print "gpu" g ": " ms[j] " present, want unknown"; exit }
		}
	}
}
