/* SPDX-License-Identifier: MIT */
/* Alert rules: the INI file, the compiled-in defaults and their evaluation. */
#include "analysis/alert.h"

#include <ctype.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/detector.h"
#include "util/scan.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

const char *const alert_kind_name[AK__COUNT] = {
	[AK_TEMP_ABOVE] = "temp_above", [AK_MEM_FREE_BELOW] = "mem_free_below",
	[AK_POWER_ZERO] = "power_zero", [AK_EVENT] = "event", [AK_STATE] = "state",
	[AK_UTIL_BELOW] = "util_below", [AK_STALE] = "stale",
};

/* The one place an event kind is tied to a rule word: a new kind (the
 * kernel-log events) is one more row. */
const struct alert_event_kind alert_events[] = {
	{ EV_XID, "xid", true },
	{ EV_GPU_LOST, "gpu_lost", false },
	{ EV_RESET_REQUIRED, "reset_required", false },
};
const size_t alert_nevents = sizeof(alert_events) / sizeof(alert_events[0]);

/*
 * The defaults.  The fatal Xid codes are the RESET, NODE and HW classes of
 * the Xid table in ../shared/docs/formats.md section 3.2 (48 DBE, 62 halt,
 * 64 remap failure, 74 NVLink, 79 off the bus, 95 uncontained ECC, 119/120
 * GSP, 140 unrecoverable ECC, 143 init failure, 154 recovery action).
 */
const char alert_rules_default_text[] =
	"; gputally alert: the compiled-in rules (docs/alert.md)\n"
	"[temp_high]\n"
	"kind = temp_above\n"
	"threshold = 92\n"
	"severity = critical\n"
	"\n"
	"[mem_free_low]\n"
	"kind = mem_free_below\n"
	"threshold = 2\n"
	"for = 5m\n"
	"\n"
	"[power_zero]\n"
	"kind = power_zero\n"
	"threshold = 0\n"
	"severity = critical\n"
	"\n"
	"[xid_fatal]\n"
	"kind = event\n"
	"events = xid, gpu_lost, reset_required\n"
	"xid_codes = 48, 62, 64, 74, 79, 95, 119, 120, 140, 143, 154\n"
	"severity = critical\n"
	"\n"
	"[gpu_down]\n"
	"kind = state\n"
	"state = down\n"
	"severity = critical\n"
	"\n"
	"[util_below_breakeven]\n"
	"kind = util_below\n"
	"threshold = ustar\n"
	"window = 1d\n"
	"\n"
	"[util_below_breakeven_in_job]\n"
	"kind = util_below\n"
	"threshold = ustar\n"
	"window = 1d\n"
	"during = job\n"
	"\n"
	"[recorder_stale]\n"
	"kind = stale\n"
	"intervals = 3\n";

/* ---- the INI file ------------------------------------------------------ */

enum key_bit {
	K_KIND = 1 << 0, K_THRESHOLD = 1 << 1, K_FOR = 1 << 2, K_WINDOW = 1 << 3,
	K_STATE = 1 << 4, K_EVENTS = 1 << 5, K_XID = 1 << 6, K_INTERVALS = 1 << 7,
	K_SEVERITY = 1 << 8, K_DURING = 1 << 9,
};

static const char *const key_names[] = {
	"kind", "threshold", "for", "window", "state", "events", "xid_codes", "intervals", "severity", "during",
};
#define NKEYS (sizeof(key_names) / sizeof(key_names[0]))

/* Keys each kind accepts besides kind and severity. */
static const unsigned kind_keys[AK__COUNT] = {
	[AK_TEMP_ABOVE] = K_THRESHOLD | K_FOR,
	[AK_MEM_FREE_BELOW] = K_THRESHOLD | K_FOR,
	[AK_POWER_ZERO] = K_THRESHOLD | K_FOR,
	[AK_EVENT] = K_EVENTS | K_XID,
	[AK_STATE] = K_STATE | K_FOR,
	[AK_UTIL_BELOW] = K_THRESHOLD | K_WINDOW | K_DURING,
	[AK_STALE] = K_INTERVALS,
};

struct rules_ctx {
	struct alert_rules *rs;
	unsigned keys[ALERT_MAX_RULES];
	char msg[192];
	bool failed;
	const char *cur;	/* the text not yet handed to inih */
	int lineno;
	int long_line;		/* the first line too long for inih's buffer, 0: none */
};

static int fail(struct rules_ctx *c, const char *fmt, const char *a, const char *b)
{
	if (!c->failed)
		snprintf(c->msg, sizeof(c->msg), fmt, a, b);
	c->failed = true;
	return 0;
}

static bool id_ok(const char *s)
{
	if (!*s || strlen(s) >= sizeof(((struct alert_rule *)0)->id))
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

static struct alert_rule *rule_for(struct rules_ctx *c, const char *section)
{
	struct alert_rules *rs = c->rs;
	struct alert_rule *r;

	if (rs->n && !strcmp(rs->r[rs->n - 1].id, section))
		return &rs->r[rs->n - 1];
	for (size_t i = 0; i < rs->n; i++)
		if (!strcmp(rs->r[i].id, section))
			return NULL;	/* a section given twice */
	if (rs->n == ALERT_MAX_RULES)
		return NULL;
	r = &rs->r[rs->n++];
	memset(r, 0, sizeof(*r));
	snprintf(r->id, sizeof(r->id), "%s", section);
	r->kind = -1;
	r->threshold = NAN;
	r->state = -1;
	r->xid_any = true;
	return r;
}

static int parse_number(const char *v, double *out)
{
	const char *p = v, *end = v + strlen(v);
	return scan_double(&p, end, out) || p != end || !isfinite(*out);
}

/* "xid, gpu_lost": each word a row of alert_events[]. */
static int parse_events(struct rules_ctx *c, struct alert_rule *r, const char *v)
{
	char word[48];

	r->events = 0;
	while (*v) {
		size_t n = strcspn(v, ", \t");
		if (n) {
			size_t i;
			snprintf(word, sizeof(word), "%.*s", (int)n, v);
			for (i = 0; i < alert_nevents; i++)
				if (!strcmp(word, alert_events[i].word))
					break;
			if (i == alert_nevents)
				return fail(c, "unknown event '%s' in [%s] (xid, gpu_lost, reset_required)",
					    word, r->id);
			r->events |= 1u << i;
		}
		v += n;
		v += strspn(v, ", \t");
	}
	return r->events ? 1 : fail(c, "[%s]: events names no event%s", r->id, "");
}

static int parse_codes(struct rules_ctx *c, struct alert_rule *r, const char *v)
{
	memset(r->xid, 0, sizeof(r->xid));
	r->xid_any = false;
	while (*v) {
		char *end;
		long code;
		v += strspn(v, ", \t");
		if (!*v)
			break;
		code = strtol(v, &end, 10);
		if (end == v || code < 0 || code >= ALERT_XID_MAX || (*end && !strchr(", \t", *end)))
			return fail(c, "[%s]: xid_codes wants codes 0..1023 separated by commas, got '%s'",
				    r->id, v);
		r->xid[code / 64] |= UINT64_C(1) << (code % 64);
		v = end;
	}
	return 1;
}

static int set_key(struct rules_ctx *c, struct alert_rule *r, int k, const char *v)
{
	double d;
	int64_t ns;

	switch (1 << k) {
	case K_KIND:
		for (int i = 0; i < AK__COUNT; i++)
			if (!strcmp(v, alert_kind_name[i]))
				r->kind = i;
		if (r->kind < 0)
			return fail(c, "[%s]: unknown kind '%s' (temp_above, mem_free_below, power_zero, "
				    "event, state, util_below, stale)", r->id, v);
		return 1;
	case K_THRESHOLD:
		if (!strcmp(v, "ustar")) {
			r->use_ustar = true;
			r->threshold = NAN;
			return 1;
		}
		if (parse_number(v, &d))
			return fail(c, "[%s]: threshold wants a number, got '%s'", r->id, v);
		r->threshold = d;
		r->use_ustar = false;
		return 1;
	case K_FOR:
	case K_WINDOW:
		if (time_parse_dur(v, &ns) || ns < 0 || (k == 3 && ns == 0))
			return fail(c, "[%s]: wants a duration such as 5m or 1d, got '%s'", r->id, v);
		if (k == 2)
			r->for_ns = ns;
		else
			r->window_ns = ns;
		return 1;
	case K_DURING:
		if (!strcmp(v, "job"))
			r->during_job = true;
		else if (!strcmp(v, "all"))
			r->during_job = false;
		else
			return fail(c, "[%s]: during wants all or job, got '%s'", r->id, v);
		return 1;
	case K_STATE:
		for (int i = 0; i < ST__COUNT; i++)
			if (!strcmp(v, state_name[i]))
				r->state = i;
		if (r->state < 0)
			return fail(c, "[%s]: unknown state '%s' (docs/states.md)", r->id, v);
		return 1;
	case K_EVENTS:
		return parse_events(c, r, v);
	case K_XID:
		return parse_codes(c, r, v);
	case K_INTERVALS:
		if (parse_number(v, &d) || d < 1 || d > 1e6 || d != floor(d))
			return fail(c, "[%s]: intervals wants a whole number from 1, got '%s'", r->id, v);
		r->intervals = (int)d;
		return 1;
	case K_SEVERITY:
		if (strcmp(v, "warning") && strcmp(v, "critical"))
			return fail(c, "[%s]: severity is warning or critical, not '%s'", r->id, v);
		r->critical = !strcmp(v, "critical");
		return 1;
	}
	return 0;
}

static int on_pair(void *user, const char *section, const char *key, const char *value)
{
	struct rules_ctx *c = user;
	struct alert_rule *r;
	size_t k;

	if (c->failed)
		return 1;	/* report the first error only */
	if (!*section)
		return fail(c, "'%s' before any [rule] section%s", key, "");
	if (!id_ok(section))
		return fail(c, "rule id [%s] wants a-z, 0-9 and _ only (at most 47)%s", section, "");
	r = rule_for(c, section);
	if (!r)
		return fail(c, c->rs->n == ALERT_MAX_RULES ? "more than 32 rules at [%s]%s" :
			    "[%s] given twice%s", section, "");
	for (k = 0; k < NKEYS; k++)
		if (!strcmp(key, key_names[k]))
			break;
	if (k == NKEYS)
		return fail(c, "unknown key '%s' in [%s]", key, section);
	c->keys[r - c->rs->r] |= 1u << k;
	return set_key(c, r, (int)k, value);
}

/* Per kind: the keys it must not have, the ones it needs, the defaults. */
static int finish_rule(struct alert_rule *r, unsigned keys, char *msg, size_t cap)
{
	unsigned extra;

	if (r->kind < 0) {
		snprintf(msg, cap, "[%s] has no kind", r->id);
		return -1;
	}
	extra = keys & ~(kind_keys[r->kind] | K_KIND | K_SEVERITY);
	for (size_t k = 0; k < NKEYS; k++)
		if (extra & (1u << k)) {
			snprintf(msg, cap, "[%s]: kind %s has no key '%s'", r->id,
				 alert_kind_name[r->kind], key_names[k]);
			return -1;
		}
	switch (r->kind) {
	case AK_TEMP_ABOVE:
	case AK_MEM_FREE_BELOW:
		if (!(keys & K_THRESHOLD) || r->use_ustar) {
			snprintf(msg, cap, "[%s]: kind %s needs a numeric threshold", r->id,
				 alert_kind_name[r->kind]);
			return -1;
		}
		break;
	case AK_POWER_ZERO:
		if (r->use_ustar) {
			snprintf(msg, cap, "[%s]: ustar is a utilization, not watts", r->id);
			return -1;
		}
		if (!(keys & K_THRESHOLD))
			r->threshold = 0;
		break;
	case AK_EVENT:
		if (!(keys & K_EVENTS))
			r->events = (1u << alert_nevents) - 1;
		break;
	case AK_STATE:
		if (r->state < 0) {
			snprintf(msg, cap, "[%s]: kind state needs state = NAME", r->id);
			return -1;
		}
		break;
	case AK_UTIL_BELOW:
		if (!(keys & K_THRESHOLD))
			r->use_ustar = true;
		if (!(keys & K_WINDOW))
			r->window_ns = NS_PER_DAY;
		break;
	case AK_STALE:
		if (!(keys & K_INTERVALS))
			r->intervals = 3;
		break;
	}
	return 0;
}

/*
 * inih cuts a line longer than its buffer and reads the rest as a line of
 * its own; we hand it the lines ourselves, so that such a line is an error
 * at its own number instead of two half lines.
 */
static char *next_line(char *buf, int num, void *stream)
{
	struct rules_ctx *c = stream;
	size_t n = strcspn(c->cur, "\n"), cap = (size_t)num - 1;

	if (!*c->cur || num < 3)
		return NULL;
	c->lineno++;
	if (n + 1 > cap) {
		if (!c->long_line)
			c->long_line = c->lineno;
		strcpy(buf, ";\n");	/* inih sees a comment */
	} else {
		memcpy(buf, c->cur, n);
		buf[n] = '\n';
		buf[n + 1] = '\0';
	}
	c->cur += n + (c->cur[n] == '\n');
	return buf;
}

int alert_rules_parse(struct alert_rules *rs, const char *text, const char *src,
		      struct gl_err *err)
{
	struct rules_ctx *c = xcalloc(1, sizeof(*c));
	int line, rc = 0;

	memset(rs, 0, sizeof(*rs));
	rs->src = src;
	c->rs = rs;
	c->cur = text;
	line = ini_parse_stream(next_line, c, on_pair, c);
	if (c->long_line && (line <= 0 || c->long_line < line)) {
		rc = gl_err_set(err, GL_EPARSE, "line longer than %d bytes", INI_MAX_LINE - 2);
		if (err) {
			err->src = src;
			err->line = (uint64_t)c->long_line;
		}
	} else if (line < 0) {
		rc = gl_err_set(err, GL_ENOMEM, "%s: out of memory", src);
	} else if (line > 0) {
		rc = gl_err_set(err, GL_EPARSE, "%s", c->failed ? c->msg :
				"expected 'key = value', '[rule]' or a comment");
		if (err) {
			err->src = src;
			err->line = (uint64_t)line;
		}
	} else {
		for (size_t i = 0; i < rs->n && !rc; i++)
			if (finish_rule(&rs->r[i], c->keys[i], c->msg, sizeof(c->msg)))
				rc = gl_err_set(err, GL_EPARSE, "%s", c->msg);
		if (!rc && !rs->n)
			rc = gl_err_set(err, GL_EPARSE, "no rules");
		if (rc && err)
			err->src = src;
	}
	free(c);
	return rc;
}

int alert_rules_load(struct alert_rules *rs, const char *path, struct gl_err *err)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t n = 0, cap = 0;
	int rc;

	if (!f)
		return gl_err_errno(err, "cannot open rules '%s'", path);
	for (;;) {
		if (n + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			if (cap > (1u << 20)) {
				fclose(f);
				free(text);
				return gl_err_set(err, GL_EPARSE, "%s: a rules file is at most 1 MiB", path);
			}
			text = xrealloc(text, cap);
		}
		size_t got = fread(text + n, 1, 4096, f);
		n += got;
		if (got < 4096)
			break;
	}
	if (ferror(f)) {
		fclose(f);
		free(text);
		return gl_err_errno(err, "cannot read rules '%s'", path);
	}
	fclose(f);
	text[n] = '\0';
	if (strlen(text) != n) {
		free(text);
		return gl_err_set(err, GL_EPARSE, "%s: a NUL byte in a rules file", path);
	}
	rc = alert_rules_parse(rs, text, path, err);
	free(text);
	return rc;
}

int alert_rules_default(struct alert_rules *rs)
{
	return alert_rules_parse(rs, alert_rules_default_text, "(compiled-in defaults)", NULL);
}

/*
 * The code is the number after the PCI group ("Xid (PCI:0000:3b:00): 79,"),
 * never the first number after "Xid" (that is the PCI domain); without a
 * group, "Xid 79" or "Xid (79)".
 */
int alert_xid_code(const char *msg)
{
	const char *p = msg ? strstr(msg, "Xid") : NULL;
	const char *close;
	long code;
	char *end;

	if (!p)
		return -1;
	p += 3;
	while (*p == ' ')
		p++;
	if (*p == '(') {
		close = strchr(p, ')');
		if (!close)
			return -1;
		if (isdigit((unsigned char)p[1]) && p + 1 + strspn(p + 1, "0123456789") == close)
			p++;
		else
			p = close + 1 + strspn(close + 1, ": ");
	}
	if (!isdigit((unsigned char)*p))
		return -1;
	code = strtol(p, &end, 10);
	return code >= 0 && code < 1000000 ? (int)code : -1;
}

/* ---- evaluation -------------------------------------------------------- */

struct alert_episode {
	bool open;
	int64_t t0, t1;
	double val;
};

/*
 * util_below: useful and utilization-known seconds per wall-clock minute, in a
 * ring just long enough for the rule's window, so that memory does not grow
 * with the length of the log and time with no utilization reading counts as
 * unknown, not as idle.
 */
struct alert_util_ring {
	size_t cap;		/* minutes kept: window / 1 min + 2 */
	int64_t last_min;	/* the newest minute written (minutes since the epoch) */
	float *busy, *known;	/* cap each, slot = minute % cap */
};

#define MIN_NS (60 * NS_PER_S)

static int64_t minute_of(int64_t t)
{
	return t >= 0 ? t / MIN_NS : -((-t + MIN_NS - 1) / MIN_NS);
}

static void ring_add(struct alert_util_ring *u, int64_t m, double busy, double known)
{
	size_t slot;

	if (!u->busy) {
		u->busy = xcalloc(u->cap, sizeof(*u->busy));
		u->known = xcalloc(u->cap, sizeof(*u->known));
		u->last_min = m;
	}
	if (m > u->last_min) {
		/* clear the minutes skipped over, at most the whole ring */
		int64_t from = m - u->last_min > (int64_t)u->cap ? m - (int64_t)u->cap + 1 : u->last_min + 1;
		for (int64_t k = from; k <= m; k++) {
			slot = (size_t)(((k % (int64_t)u->cap) + (int64_t)u->cap) % (int64_t)u->cap);
			u->busy[slot] = u->known[slot] = 0;
		}
		u->last_min = m;
	}
	if (m <= u->last_min - (int64_t)u->cap)
		return;		/* older than the ring: outside any window */
	slot = (size_t)(((m % (int64_t)u->cap) + (int64_t)u->cap) % (int64_t)u->cap);
	u->busy[slot] += (float)busy;
	u->known[slot] += (float)known;
}

/* A job holds the GPU: the state of docs/states.md is one of work or held
 * but idle (memory held or a process present, no work: the waste the rule is
 * for), not idle, down, unknown or a gap. */
static bool job_holds(int st)
{
	return st != ST_IDLE && st != ST_GAP && st != ST_DOWN && st != ST_UNKNOWN;
}

/* The useful share (docs/states.md "Busy"): useful-state seconds over the
 * seconds with a utilization reading (with during_job, only while a job
 * holds the GPU). */
static void ring_feed(struct alert_util_ring *u, const struct ival *iv, int st, bool during_job)
{
	double util = iv->v[M_UTIL_GPU];
	bool useful = state_is_useful(st);

	if (iv->kind != IV_DATA || !(iv->present & (1u << M_UTIL_GPU)) || isnan(util))
		return;
	if (during_job && !job_holds(st))
		return;
	for (int64_t t0 = iv->t0_ns; t0 < iv->t1_ns;) {
		int64_t m = minute_of(t0), end = (m + 1) * MIN_NS;
		int64_t t1 = iv->t1_ns < end ? iv->t1_ns : end;
		double dt = (double)(t1 - t0) / 1e9;
		ring_add(u, m, useful ? dt : 0, dt);
		t0 = t1;
	}
}

static struct alert *new_alert(struct alert_eval *ev, const struct alert_rule *r, int gpu,
			       int64_t t0, int64_t t1, double value)
{
	struct alert *a;

	if (ev->n >= ALERT_MAX_ALERTS) {
		ev->dropped++;
		return NULL;
	}
	ALLOC_GROW(ev->alerts, ev->n + 1, ev->alloc);
	a = &ev->alerts[ev->n++];
	memset(a, 0, sizeof(*a));
	a->rule = r;
	a->gpu = gpu;
	a->start_ns = t0;
	a->end_ns = t1;
	a->value = value;
	a->count = 1;
	return a;
}

static void close_episode(struct alert_eval *ev, const struct alert_rule *r, int gpu,
			  struct alert_episode *e)
{
	struct alert *a;
	char dur[32];

	if (!e->open)
		return;
	e->open = false;
	if (e->t1 - e->t0 < r->for_ns)
		return;
	a = new_alert(ev, r, gpu, e->t0, e->t1, r->kind == AK_STATE ? (double)(e->t1 - e->t0) / 1e9 :
		      e->val);
	if (!a)
		return;
	time_human_dur(dur, sizeof(dur), e->t1 - e->t0);
	switch (r->kind) {
	case AK_TEMP_ABOVE:
		snprintf(a->message, sizeof(a->message), "temperature above %g C for %s (max %g C)",
			 r->threshold, dur, e->val);
		break;
	case AK_MEM_FREE_BELOW:
		snprintf(a->message, sizeof(a->message), "free memory below %g GiB for %s (min %.3f GiB)",
			 r->threshold, dur, e->val);
		break;
	case AK_POWER_ZERO:
		snprintf(a->message, sizeof(a->message),
			 "power at or below %g W for %s while the GPU still reports", r->threshold, dur);
		break;
	case AK_STATE:
		snprintf(a->message, sizeof(a->message), "GPU %s for %s", state_name[r->state], dur);
		break;
	}
}

/* Does the interval meet the rule, and with which value? */
static bool holds(const struct alert_rule *r, const struct ival *iv, int st, double *val)
{
	bool data = iv->kind == IV_DATA;
	uint32_t pr = iv->present;

	switch (r->kind) {
	case AK_TEMP_ABOVE:
		*val = iv->v[M_TEMP];
		return data && (pr & (1u << M_TEMP)) && *val > r->threshold;
	case AK_MEM_FREE_BELOW:
		if (!data || !(pr & (1u << M_MEM_USED)) || !(pr & (1u << M_MEM_TOTAL)))
			return false;
		*val = (iv->v[M_MEM_TOTAL] - iv->v[M_MEM_USED]) / 1024;
		return *val < r->threshold;
	case AK_POWER_ZERO:
		*val = iv->v[M_POWER];
		return data && st != ST_DOWN && !(iv->status & (GS_LOST | GS_RESET)) &&
		       (pr & (1u << M_POWER)) && *val <= r->threshold;
	case AK_STATE:
		*val = 0;
		return st == r->state;
	}
	return false;
}

/* The value that represents an episode: the worst one seen. */
static bool worse(int kind, double v, double than)
{
	return kind == AK_TEMP_ABOVE ? v > than : v < than;
}

static void on_interval(void *ud, int gpu, const struct ival *iv, int st)
{
	struct alert_eval *ev = ud;
	const struct alert_rules *rs = ev->rules;
	struct alert_episode *eps;
	double v;

	if (gpu < 0 || gpu >= TL_MAX_GPUS)
		return;
	if (!ev->ep[gpu])
		ev->ep[gpu] = xcalloc(ALERT_MAX_RULES, sizeof(*ev->ep[gpu]));
	eps = ev->ep[gpu];
	for (size_t i = 0; i < rs->n; i++) {
		const struct alert_rule *r = &rs->r[i];
		struct alert_episode *e = &eps[i];
		if (r->kind == AK_UTIL_BELOW) {
			if (!ev->ur[gpu])
				ev->ur[gpu] = xcalloc(rs->n, sizeof(*ev->ur[gpu]));
			if (!ev->ur[gpu][i].cap)
				ev->ur[gpu][i].cap = (size_t)(r->window_ns / MIN_NS) + 2;
			ring_feed(&ev->ur[gpu][i], iv, st, r->during_job);
			continue;
		}
		if (r->kind != AK_TEMP_ABOVE && r->kind != AK_MEM_FREE_BELOW &&
		    r->kind != AK_POWER_ZERO && r->kind != AK_STATE)
			continue;
		if (!holds(r, iv, st, &v)) {
			close_episode(ev, r, gpu, e);
			continue;
		}
		if (e->open && iv->t0_ns <= e->t1) {
			e->t1 = iv->t1_ns;
			if (worse(r->kind, v, e->val))
				e->val = v;
			continue;
		}
		close_episode(ev, r, gpu, e);
		*e = (struct alert_episode){ true, iv->t0_ns, iv->t1_ns, v };
	}
}

static bool event_matches(const struct alert_rule *r, const struct det_event *e, int *code)
{
	*code = -1;
	for (size_t i = 0; i < alert_nevents; i++) {
		if (alert_events[i].ev != e->ev || !(r->events & (1u << i)))
			continue;
		if (!alert_events[i].has_xid_code)
			return true;
		*code = e->code >= 0 ? e->code : alert_xid_code(e->msg);
		if (r->xid_any)
			return true;
		return *code >= 0 && *code < ALERT_XID_MAX &&
		       (r->xid[*code / 64] >> (*code % 64) & 1);
	}
	return false;
}

/* A repeat of the same event (rule, GPU, code) within a minute of the last
 * one is folded into its alert: a burst is one alert with a count. */
static struct alert *repeat_of(struct alert_eval *ev, const struct alert_rule *r, int gpu,
			       double value, int64_t t)
{
	for (size_t i = ev->n; i-- > 0 && i + 16 >= ev->n;) {
		struct alert *a = &ev->alerts[i];
		if (a->rule == r && a->gpu == gpu && t - a->end_ns <= 60 * NS_PER_S &&
		    (a->value == value || (isnan(a->value) && isnan(value))))
			return a;
	}
	return NULL;
}

static void on_event(void *ud, int gpu, const struct det_event *e)
{
	struct alert_eval *ev = ud;
	const struct alert_rules *rs = ev->rules;

	for (size_t i = 0; i < rs->n; i++) {
		const struct alert_rule *r = &rs->r[i];
		struct alert *a;
		const char *word = e->ev >= 0 && e->ev < EV__COUNT ? event_kind_name[e->ev] : NULL;
		double value;
		int code;

		if (r->kind != AK_EVENT || !event_matches(r, e, &code))
			continue;
		value = code >= 0 ? code : NAN;
		a = repeat_of(ev, r, gpu, value, e->t_ns);
		if (a) {
			a->end_ns = e->t_ns;
			a->count++;
			continue;
		}
		a = new_alert(ev, r, gpu, e->t_ns, e->t_ns, value);
		if (!a)
			continue;
		snprintf(a->message, sizeof(a->message), "%s: %.200s", word ? word : "event",
			 e->msg ? e->msg : "");
		snprintf(a->source, sizeof(a->source), "%s:%llu", e->src ? e->src : "?",
			 (unsigned long long)e->line);
	}
}

void alert_eval_init(struct alert_eval *ev, const struct alert_rules *rs, struct analysis *an,
		     double u_star)
{
	memset(ev, 0, sizeof(*ev));
	ev->rules = rs;
	ev->an = an;
	ev->u_star = u_star;
	ev->tap = (struct analysis_tap){ ev, on_interval, on_event };
	an->tap = &ev->tap;
}

/* FNV-1a of the UUID, or of the index: which GPU a sample is of. */
static uint64_t gpu_key(const char *uuid, int index)
{
	uint64_t h = UINT64_C(1469598103934665603);

	if (!uuid || !*uuid)
		return UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)(uint32_t)index;
	for (; *uuid; uuid++)
		h = (h ^ (unsigned char)*uuid) * UINT64_C(1099511628211);
	return h;
}

static void note_gpu(struct alert_input *in, uint64_t key)
{
	for (int i = 0; i < in->ngpu; i++)
		if (in->gpu_key[i] == key)
			return;
	if (in->ngpu == (int)(sizeof(in->gpu_key) / sizeof(in->gpu_key[0])))
		in->gpus_overflow = true;
	else
		in->gpu_key[in->ngpu++] = key;
}

struct input_key {
	const struct alert_eval *ev;
	const char *path;
};

static bool input_eq(const void *ctx, size_t i)
{
	const struct input_key *k = ctx;

	return k->ev->inputs[i].path == k->path || !strcmp(k->ev->inputs[i].path, k->path);
}

void alert_eval_sample(struct alert_eval *ev, const char *path, bool recorder, int64_t t_ns,
		       const char *uuid, int index)
{
	struct alert_input *in = NULL;

	/* samples come in runs of one input: the last one first, then the
	 * others by path (a scan of them per sample grew with inputs times
	 * samples); a path is one input */
	if (ev->last_input && (ev->inputs[ev->last_input - 1].path == path ||
			       !strcmp(ev->inputs[ev->last_input - 1].path, path))) {
		in = &ev->inputs[ev->last_input - 1];
	} else {
		uint64_t h = hash_bytes(HASH_SEED, path, strlen(path));
		struct input_key k = { ev, path };
		size_t i = hashidx_find(&ev->input_idx, h, input_eq, &k);
		if (i != HASHIDX_NONE) {
			in = &ev->inputs[i];
		} else {
			ALLOC_GROW(ev->inputs, ev->ninputs + 1, ev->inputs_alloc);
			in = &ev->inputs[ev->ninputs++];
			*in = (struct alert_input){ .path = path, .recorder = recorder, .last_ns = INT64_MIN,
						    .prev_ns = INT64_MIN };
			hashidx_add(&ev->input_idx, h, ev->ninputs - 1);
		}
		ev->last_input = (size_t)(in - ev->inputs) + 1;
	}
	if (in->last_ns == INT64_MIN || t_ns > in->last_ns) {
		if (in->last_ns != INT64_MIN && in->ndts < (int)(sizeof(in->dts) / sizeof(in->dts[0])))
			in->dts[in->ndts++] = t_ns - in->last_ns;
		in->prev_ns = in->last_ns;
		in->last_ns = t_ns;
	}
	if (recorder)
		note_gpu(in, gpu_key(uuid, index));
}

/* Is every GPU of recorder file a also in a recorder file with newer data?
 * Then a is an earlier file of the same recorder (yesterday's daily file,
 * one rotated away), not a stale one. */
static bool superseded(const struct alert_eval *ev, const struct alert_input *a)
{
	if (a->gpus_overflow || !a->ngpu)
		return false;
	for (int g = 0; g < a->ngpu; g++) {
		bool found = false;
		for (size_t i = 0; i < ev->ninputs && !found; i++) {
			const struct alert_input *b = &ev->inputs[i];
			if (b == a || !b->recorder || b->last_ns <= a->last_ns)
				continue;
			for (int h = 0; h < b->ngpu && !found; h++)
				found = b->gpu_key[h] == a->gpu_key[g];
		}
		if (!found)
			return false;
	}
	return true;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void eval_stale(struct alert_eval *ev, const struct alert_rule *r, int64_t now)
{
	char dur[32], ago[32];

	for (size_t i = 0; i < ev->ninputs; i++) {
		struct alert_input *in = &ev->inputs[i];
		int64_t dts[15], interval;
		struct alert *a;

		if (!in->recorder || in->last_ns == INT64_MIN || !in->ndts)
			continue;	/* one sample: no interval to count in */
		memcpy(dts, in->dts, sizeof(dts));
		qsort(dts, (size_t)in->ndts, sizeof(dts[0]), cmp_i64);
		interval = dts[in->ndts / 2];
		if (now - in->last_ns <= (int64_t)r->intervals * interval || superseded(ev, in))
			continue;
		a = new_alert(ev, r, -1, in->last_ns, now, (double)(now - in->last_ns) / 1e9);
		if (!a)
			continue;
		snprintf(a->source, sizeof(a->source), "%s", in->path);
		time_human_dur(dur, sizeof(dur), interval);
		time_human_dur(ago, sizeof(ago), now - in->last_ns);
		snprintf(a->message, sizeof(a->message),
			 "recorder file not updated for %s, more than %d intervals of %s", ago,
			 r->intervals, dur);
	}
}

/* Useful over utilization-known seconds of the minutes that end inside the
 * window [last sample - window, last sample]. */
static void eval_util(struct alert_eval *ev, const struct alert_rule *r, size_t ri)
{
	double thr = r->use_ustar ? 100 * ev->u_star : r->threshold;
	char dur[32];

	if (isnan(thr)) {
		ev->util_skipped = true;
		return;
	}
	for (int gi = 0; gi < ev->an->tl.ngpus && gi < TL_MAX_GPUS; gi++) {
		const struct gpu_stats *g = &ev->an->gpus[gi];
		const struct alert_util_ring *u = ev->ur[gi] ? &ev->ur[gi][ri] : NULL;
		int64_t from = g->last_ns - r->window_ns;
		double busy = 0, known = 0, pct;
		struct alert *a;

		if (!u || !u->busy)
			continue;	/* no utilization known: unknown, not idle */
		for (int64_t m = u->last_min - (int64_t)u->cap + 1; m <= u->last_min; m++) {
			size_t slot = (size_t)(((m % (int64_t)u->cap) + (int64_t)u->cap) % (int64_t)u->cap);
			if ((m + 1) * MIN_NS <= from)
				continue;
			busy += u->busy[slot];
			known += u->known[slot];
		}
		if (known <= 0)
			continue;
		pct = 100 * busy / known;
		if (!(pct < thr))
			continue;
		a = new_alert(ev, r, gi, from > g->first_ns ? from : g->first_ns, g->last_ns, pct);
		if (!a)
			continue;
		time_human_dur(dur, sizeof(dur), r->window_ns);
		snprintf(a->message, sizeof(a->message),
			 "useful share %.2f %% %sover the last %s of data is below %s %.2f %%", pct,
			 r->during_job ? "while a job held the GPU " : "", dur,
			 r->use_ustar ? "the break-even u* =" : "the threshold", thr);
	}
}

static int cmp_alert(const void *pa, const void *pb)
{
	const struct alert *a = pa, *b = pb;
	if (a->start_ns != b->start_ns)
		return a->start_ns < b->start_ns ? -1 : 1;
	if (a->gpu != b->gpu)
		return a->gpu < b->gpu ? -1 : 1;
	return strcmp(a->rule->id, b->rule->id);
}

void alert_eval_finish(struct alert_eval *ev, int64_t now_ns)
{
	const struct alert_rules *rs = ev->rules;

	for (int gi = 0; gi < TL_MAX_GPUS; gi++)
		if (ev->ep[gi])
			for (size_t i = 0; i < rs->n; i++)
				close_episode(ev, &rs->r[i], gi, &ev->ep[gi][i]);
	for (size_t i = 0; i < rs->n; i++) {
		if (rs->r[i].kind == AK_UTIL_BELOW)
			eval_util(ev, &rs->r[i], i);
		else if (rs->r[i].kind == AK_STALE)
			eval_stale(ev, &rs->r[i], now_ns);
	}
	if (ev->n)
		qsort(ev->alerts, ev->n, sizeof(*ev->alerts), cmp_alert);
}

void alert_eval_release(struct alert_eval *ev)
{
	for (int gi = 0; gi < TL_MAX_GPUS; gi++) {
		free(ev->ep[gi]);
		if (ev->ur[gi])
			for (size_t i = 0; i < ev->rules->n; i++) {
				free(ev->ur[gi][i].busy);
				free(ev->ur[gi][i].known);
			}
		free(ev->ur[gi]);
	}
	free(ev->alerts);
	free(ev->inputs);
	hashidx_release(&ev->input_idx);
	if (ev->an && ev->an->tap == &ev->tap)
		ev->an->tap = NULL;
	memset(ev, 0, sizeof(*ev));
}
