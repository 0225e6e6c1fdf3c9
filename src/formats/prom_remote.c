/* SPDX-License-Identifier: MIT */
/* A Prometheus server as a source (see prom_remote.h). */
#include "formats/prom_remote.h"

#include "formats/curl_dl.h"
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/kmsg.h"
#include "formats/prom_names.h"
#include "util/strfmt.h"
#include "util/json.h"
#include "util/timeutil.h"
#include "util/xalloc.h"

const struct format prom_remote_format = {
	.id = "prometheus-api",
	.summary = "a Prometheus server's HTTP API (report --prometheus)",
	.detects = "not sniffed: named by --prometheus",
};

#define MAX_POINTS 10000		/* per series per request: under the server's 11,000 */
#define NSLOT (M__COUNT + 2)		/* the metrics, then FB_FREE and XID */
#define SLOT_FB_FREE M__COUNT
#define SLOT_XID (M__COUNT + 1)
#define DEF_TIMEOUT_NS (60 * NS_PER_S)
#define CONNECT_TIMEOUT_MS 10000L
#define DEF_MAX_BODY ((size_t)64 << 20)
#define DEF_MEM ((size_t)16 << 20)
#define BYTES_PER_POINT 40		/* a [t,"v"] pair as the server writes it, roughly */

struct buf {
	char *p;
	size_t n, cap;
};

/* One HTTP request, retried in place. */
struct req {
	CURL *h;
	char *url;
	char what[512];		/* "query_range NAME from .. to .." for messages */
	struct buf body;
	size_t max_body;
	bool too_big, running, done, ok;
	int attempt;
	int64_t not_before_ns;
	long status;
	char fail[640];
	size_t name;		/* prom_names index (query_range) */
};

struct conn {
	const struct prom_remote_opts *o;
	char base[1024];	/* the URL without a trailing '/' */
	char redacted[256];
	struct curl_slist *hdrs;
	char *password;
	CURLM *multi;
	struct prom_fleet *fleet;
};

/* ---- small helpers ---------------------------------------------------- */

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static void buf_add(struct buf *b, const char *p, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t c = b->cap ? b->cap : 4096;
		while (c < b->n + n + 1)
			c *= 2;
		b->p = xrealloc(b->p, c);
		b->cap = c;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
	b->p[b->n] = 0;
}

void prom_redact_url(const char *url, char *out, size_t cap)
{
	const char *scheme = strstr(url, "://");
	const char *host = scheme ? scheme + 3 : url;
	const char *at = strchr(host, '@');
	const char *slash = strchr(host, '/');

	if (at && (!slash || at < slash))
		snprintf(out, cap, "%.*s***@%s", (int)(host - url), url, at + 1);
	else
		snprintf(out, cap, "%s", url);
}

/* The first line of a secret file, without trailing blanks. */
static char *read_secret(const char *path, const char *what, struct gl_err *err)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	size_t n;

	if (!f) {
		gl_err_errno(err, "cannot read the %s file '%s'", what, path);
		return NULL;
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = 0;
	fclose(f);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		line[--n] = 0;
	if (!n) {
		gl_err_set(err, GL_EUSAGE, "the %s file '%s' is empty", what, path);
		return NULL;
	}
	return xstrdup(line);
}

static void secure_free(char *s)
{
	if (s) {
		volatile char *v = s;
		while (*v)
			*v++ = 0;
		free(s);
	}
}

/* ---- HTTP ------------------------------------------------------------- */

static bool key_is(const struct json_lex *lx, const char *k)
{
	size_t n = strlen(k);
	return lx->tok.n == n && !memcmp(lx->tok.p, k, n);
}


static size_t on_body(char *p, size_t sz, size_t nm, void *ud)
{
	struct req *r = ud;
	size_t n = sz * nm;

	if (r->body.n + n > r->max_body) {
		r->too_big = true;
		return 0;	/* abort the transfer */
	}
	buf_add(&r->body, p, n);
	return n;
}

static int conn_open(struct conn *c, const struct prom_remote_opts *o, struct prom_fleet *fl,
		     struct gl_err *err)
{
	size_t n;

	memset(c, 0, sizeof(*c));
	if (curl_dl_load(err))
		return err->code;
	c->o = o;
	c->fleet = fl;
	if (strncmp(o->url, "http://", 7) && strncmp(o->url, "https://", 8))
		return gl_err_set(err, GL_EUSAGE, "--prometheus wants an http:// or https:// URL");
	snprintf(c->base, sizeof(c->base), "%s", o->url);
	n = strlen(c->base);
	while (n && c->base[n - 1] == '/')
		c->base[--n] = 0;
	prom_redact_url(c->base, c->redacted, sizeof(c->redacted));
	if (o->bearer_file) {
		char *tok = read_secret(o->bearer_file, "bearer token", err), *h;
		if (!tok)
			return err->code;
		h = xmalloc(strlen(tok) + 32);
		sprintf(h, "Authorization: Bearer %s", tok);
		c->hdrs = curl_slist_append(c->hdrs, h);
		secure_free(h);
		secure_free(tok);
		if (!c->hdrs)
			return gl_err_set(err, GL_ENOMEM, "out of memory");
	}
	if (o->user && o->password_file && !(c->password = read_secret(o->password_file, "password", err)))
		return err->code;
	if (curl_global_init(CURL_GLOBAL_DEFAULT))
		return gl_err_set(err, GL_EIO, "libcurl failed to start");
	c->multi = curl_multi_init();
	if (!c->multi)
		return gl_err_set(err, GL_ENOMEM, "libcurl failed to start");
	return 0;
}

static void conn_close(struct conn *c)
{
	if (c->multi)
		curl_multi_cleanup(c->multi);
	if (c->hdrs)
		curl_slist_free_all(c->hdrs);
	secure_free(c->password);
	c->multi = NULL;
	c->hdrs = NULL;
	c->password = NULL;
}

static void req_init(struct req *r, struct conn *c, const char *path, const char *query)
{
	size_t n = strlen(c->base) + strlen(path) + (query ? strlen(query) : 0) + 4;

	memset(r, 0, sizeof(*r));
	r->url = xmalloc(n);
	snprintf(r->url, n, "%s%s%s%s", c->base, path, query ? "?" : "", query ? query : "");
	r->max_body = c->o->max_body ? c->o->max_body : DEF_MAX_BODY;
}

static void req_release(struct req *r)
{
	free(r->url);
	free(r->body.p);
	if (r->h)
		curl_easy_cleanup(r->h);
	memset(r, 0, sizeof(*r));
}

static int req_start(struct conn *c, struct req *r)
{
	const struct prom_remote_opts *o = c->o;
	int64_t to = o->timeout_ns > 0 ? o->timeout_ns : DEF_TIMEOUT_NS;

	if (!r->h && !(r->h = curl_easy_init()))
		return -1;
	curl_easy_reset(r->h);
	r->body.n = 0;
	r->too_big = false;
	r->status = 0;
	curl_easy_setopt(r->h, CURLOPT_URL, r->url);
	curl_easy_setopt(r->h, CURLOPT_PRIVATE, r);
	curl_easy_setopt(r->h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(r->h, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(r->h, CURLOPT_ACCEPT_ENCODING, "");	/* every encoding libcurl decodes: gzip */
	curl_easy_setopt(r->h, CURLOPT_CONNECTTIMEOUT_MS, to / NS_PER_MS < CONNECT_TIMEOUT_MS ? (long)(to / NS_PER_MS) : CONNECT_TIMEOUT_MS);
	curl_easy_setopt(r->h, CURLOPT_TIMEOUT_MS, (long)(to / NS_PER_MS));
	/* A redirect is never followed: a credential must not reach another
	 * host, and a Prometheus API does not redirect. */
	curl_easy_setopt(r->h, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(r->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(r->h, CURLOPT_USERAGENT, "gputally");
	curl_easy_setopt(r->h, CURLOPT_PROTOCOLS_STR, "http,https");
	if (c->hdrs)
		curl_easy_setopt(r->h, CURLOPT_HTTPHEADER, c->hdrs);
	if (o->user) {
		curl_easy_setopt(r->h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		curl_easy_setopt(r->h, CURLOPT_USERNAME, o->user);
		if (c->password)
			curl_easy_setopt(r->h, CURLOPT_PASSWORD, c->password);
		else
			curl_easy_setopt(r->h, CURLOPT_NETRC, (long)CURL_NETRC_REQUIRED);
	}
	if (o->cacert)
		curl_easy_setopt(r->h, CURLOPT_CAINFO, o->cacert);
	if (o->insecure) {
		curl_easy_setopt(r->h, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(r->h, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (curl_multi_add_handle(c->multi, r->h) != CURLM_OK)
		return -1;
	r->running = true;
	r->attempt++;
	c->fleet->requests++;
	return 0;
}

/* "errorType: error" of a Prometheus error answer, if the body is one. */
static void api_error_text(const struct buf *b, char *out, size_t cap)
{
	struct json_lex lx;
	enum json_tok t;
	char type[48] = "", msg[160] = "";
	int which;

	out[0] = 0;
	if (!b->n)
		return;
	json_lex_init(&lx, b->p, b->p + b->n, true);
	if (json_next(&lx) != JT_OBJ)
		return;
	while ((t = json_next(&lx)) == JT_KEY) {
		which = key_is(&lx, "error") ? 1 : key_is(&lx, "errorType") ? 2 : 0;
		t = json_next(&lx);
		if (t == JT_STR && which == 1)
			msg[json_unescape(lx.tok, msg, sizeof(msg) - 1)] = 0;
		if (t == JT_STR && which == 2)
			type[json_unescape(lx.tok, type, sizeof(type) - 1)] = 0;
		if (t < 0 || ((t == JT_OBJ || t == JT_ARR) && json_skip(&lx, t) != 1))
			break;
	}
	if (msg[0])
		fmt_cut(out, cap, "%s%s%s", type, type[0] ? ": " : "", msg);
}

/* After a transfer: done (ok or failed for good), or to be tried again. */
static void req_finish(struct conn *c, struct req *r, CURLcode cc)
{
	int tries = c->o->tries > 0 ? c->o->tries : 3;
	bool retry = false;
	char apierr[160];

	curl_multi_remove_handle(c->multi, r->h);
	r->running = false;
	curl_easy_getinfo(r->h, CURLINFO_RESPONSE_CODE, &r->status);
	if (r->too_big) {
		snprintf(r->fail, sizeof(r->fail), "the answer is larger than %zu MiB: refused (narrow --since or --match)",
			 r->max_body >> 20);
	} else if (cc != CURLE_OK) {
		snprintf(r->fail, sizeof(r->fail), "%s", curl_easy_strerror(cc));
		retry = true;
	} else if (r->status >= 300 && r->status < 400) {
		char *loc = NULL, red[160];
		curl_easy_getinfo(r->h, CURLINFO_REDIRECT_URL, &loc);
		prom_redact_url(loc ? loc : "?", red, sizeof(red));
		snprintf(r->fail, sizeof(r->fail), "HTTP %ld redirect to %s, not followed (no credential goes to another "
			 "host; give the final URL)", r->status, red);
	} else if (r->status != 200) {
		api_error_text(&r->body, apierr, sizeof(apierr));
		snprintf(r->fail, sizeof(r->fail), "HTTP %ld%s%s%s", r->status, apierr[0] ? ": " : "", apierr,
			 apierr[0] || r->status != 404 ? "" : " (is this a Prometheus server?)");
		retry = r->status >= 500 || r->status == 429;
	} else {
		r->done = r->ok = true;
		return;
	}
	if (retry && r->attempt < tries) {
		/* backoff: 0.25 s, 0.5 s, 1 s ... */
		r->not_before_ns = now_ns() + (NS_PER_S / 4 << (r->attempt - 1));
		c->fleet->retries++;
		return;
	}
	r->done = true;
}

/* Run every request to completion, at most `parallel` at once. */
static int run_all(struct conn *c, struct req *rs, size_t n)
{
	int par = c->o->parallel > 0 ? c->o->parallel : 4;

	for (;;) {
		int running = 0, still, msgs;
		size_t pending = 0;
		int64_t t = now_ns();
		CURLMsg *m;

		for (size_t i = 0; i < n; i++)
			running += rs[i].running;
		for (size_t i = 0; i < n && running < par; i++)
			if (!rs[i].done && !rs[i].running && rs[i].not_before_ns <= t) {
				if (req_start(c, &rs[i]))
					return -1;
				running++;
			}
		for (size_t i = 0; i < n; i++)
			pending += !rs[i].done;
		if (!pending)
			return 0;
		curl_multi_perform(c->multi, &still);
		while ((m = curl_multi_info_read(c->multi, &msgs)))
			if (m->msg == CURLMSG_DONE) {
				struct req *r = NULL;
				curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
				if (r)
					req_finish(c, r, m->data.result);
			}
		curl_multi_poll(c->multi, NULL, 0, 50, NULL);
	}
}

/* One request, synchronously; 0 or err filled naming the query. */
static int fetch_one(struct conn *c, struct req *r, struct gl_err *err)
{
	if (run_all(c, r, 1))
		return gl_err_set(err, GL_ENOMEM, "%s: libcurl failed to start a transfer", r->what);
	if (!r->ok)
		return gl_err_set(err, GL_EIO, "%s: %s", r->what, r->fail);
	return 0;
}

/* ---- JSON answers ----------------------------------------------------- */

/* Position lx inside the top object at the value of "data"; checks status. */
static int open_data(struct json_lex *lx, struct req *r, struct gl_err *err)
{
	enum json_tok t;
	bool success = false;

	json_lex_init(lx, r->body.p ? r->body.p : "", r->body.p ? r->body.p + r->body.n : "", true);
	if (json_next(lx) != JT_OBJ)
		return gl_err_set(err, GL_EPARSE, "%s: the answer is not a JSON object (is %s a Prometheus server?)",
				  r->what, "the URL");
	while ((t = json_next(lx)) == JT_KEY) {
		if (key_is(lx, "status")) {
			if (json_next(lx) != JT_STR)
				break;
			success = key_is(lx, "success");
			continue;
		}
		if (key_is(lx, "data")) {
			if (!success)
				return gl_err_set(err, GL_EPARSE, "%s: the answer has no \"status\":\"success\" before its data",
						  r->what);
			return 0;
		}
		t = json_next(lx);
		if (t < 0)
			break;
		if ((t == JT_OBJ || t == JT_ARR) && json_skip(lx, t) != 1)
			break;
	}
	if (lx->err)
		return gl_err_set(err, GL_EPARSE, "%s: invalid JSON at byte %zu: %s", r->what,
				  (size_t)(lx->p - r->body.p), lx->err);
	return gl_err_set(err, GL_EPARSE, "%s: the answer has no \"data\" (is this a Prometheus server?)", r->what);
}

static int json_fail(struct json_lex *lx, struct req *r, struct gl_err *err)
{
	return gl_err_set(err, GL_EPARSE, "%s: invalid JSON at byte %zu: %s", r->what,
			  (size_t)(lx->p - r->body.p), lx->err ? lx->err : "unexpected token");
}

/* ---- labels ---------------------------------------------------------- */

/* Labels of one series that gputally uses. */
struct labels {
	char uuid[128], node[128], name[128], ns[64], pod[128], container[64], mig[16], profile[32];
	char xns[64], xpod[128], xcontainer[64];
	char hostname[128], host[128], instance[128];
	int gpu;
};

static void label_set(struct labels *l, const struct json_lex *key, struct slice val)
{
	static const struct {
		const char *k;
		size_t off, cap;
	} keys[] = {
#define L(k, f) { k, offsetof(struct labels, f), sizeof(((struct labels *)0)->f) }
		L("UUID", uuid), L("uuid", uuid), L("modelName", name), L("name", name),
		L("namespace", ns), L("pod", pod), L("container", container),
		L("exported_namespace", xns), L("exported_pod", xpod), L("exported_container", xcontainer),
		L("Hostname", hostname), L("hostname", hostname), L("host", host), L("instance", instance), L("GPU_I_ID", mig),
		L("GPU_I_PROFILE", profile),
#undef L
	};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (key_is(key, keys[i].k)) {
			char *dst = (char *)l + keys[i].off;
			dst[json_unescape(val, dst, keys[i].cap - 1)] = 0;
			return;
		}
	if (key_is(key, "gpu")) {
		char v[16];
		char *end;
		long n;
		v[json_unescape(val, v, sizeof(v) - 1)] = 0;
		n = strtol(v, &end, 10);
		if (!*end && end != v && n >= 0 && n < 100000)
			l->gpu = (int)n;
	}
}

/* The GPU a series describes: its UUID, else node and index. */
static const char *gpu_key(const struct labels *l, char *key, size_t cap)
{
	const char *node = l->hostname[0] ? l->hostname : l->host[0] ? l->host : l->instance;

	if (l->uuid[0])
		snprintf(key, cap, "%s%s", strncmp(l->uuid, "GPU-", 4) && strncmp(l->uuid, "MIG-", 4) ? "GPU-" : "",
			 l->uuid);
	else
		snprintf(key, cap, "%s/gpu%d", node[0] ? node : "?", l->gpu);
	return node;
}

/* A MIG slice's key: its GPU's, then "/gi" and the GPU instance id. */
static void slice_key(const struct labels *l, char *key, size_t cap)
{
	char parent[160];

	gpu_key(l, parent, sizeof(parent));
	snprintf(key, cap, "%.140s/gi%s", parent, l->mig);
}

/*
 * A MIG profile's share of its GPU: "3g.71gb" holds 3 of the GPU's compute
 * slices, 4 on an A30, 7 on every other MIG GPU (A100, H100, H200, B200);
 * NAN when the profile does not start with "<n>g.".
 */
static double profile_share(const char *profile, const char *model)
{
	char *end;
	long n = strtol(profile, &end, 10);
	int of = strstr(model, "A30") ? 4 : 7;

	if (end == profile || *end != 'g' || end[1] != '.' || n < 1 || n > of)
		return NAN;
	return (double)n / of;
}

/* ---- discovery -------------------------------------------------------- */

/* "{a=\"b\"}" -> "a=\"b\"" into out; -1 if not a bare selector. */
static int selector_inner(const char *sel, char *out, size_t cap)
{
	size_t n = strlen(sel);

	while (n && sel[n - 1] == ' ')
		n--;
	while (*sel == ' ')
		sel++, n--;
	if (n < 2 || sel[0] != '{' || sel[n - 1] != '}' || n - 2 >= cap)
		return -1;
	memcpy(out, sel + 1, n - 2);
	out[n - 2] = 0;
	return 0;
}

/* NAME{inner} or (NAME{a} or NAME{b}) for the --match selectors. */
static char *name_query(const struct prom_remote_opts *o, const char *name)
{
	struct buf b = { 0 };
	char inner[1024];

	if (!o->nmatch) {
		buf_add(&b, name, strlen(name));
		return b.p;
	}
	for (size_t i = 0; i < o->nmatch; i++) {
		if (i)
			buf_add(&b, " or ", 4);
		selector_inner(o->match[i], inner, sizeof(inner));
		buf_add(&b, name, strlen(name));
		buf_add(&b, "{", 1);
		buf_add(&b, inner, strlen(inner));
		buf_add(&b, "}", 1);
	}
	return b.p;
}

static void add_param(struct buf *q, const char *k, const char *v)
{
	char *e = curl_easy_escape(NULL, v, 0);

	if (q->n)
		buf_add(q, "&", 1);
	buf_add(q, k, strlen(k));
	buf_add(q, "=", 1);
	if (e) {
		buf_add(q, e, strlen(e));
		curl_free(e);
	}
}

static void add_time(struct buf *q, const char *k, int64_t t_ns)
{
	char v[48];
	snprintf(v, sizeof(v), "%" PRId64 ".%03" PRId64, t_ns / NS_PER_S, (t_ns % NS_PER_S) / NS_PER_MS);
	add_param(q, k, v);
}

/* The smallest scrape interval of the active targets, or 0 if unknown. */
static int64_t discover_step(struct conn *c)
{
	struct req r;
	struct json_lex lx;
	struct gl_err e = { 0 };
	int64_t best = 0;
	enum json_tok t;

	req_init(&r, c, "/api/v1/targets", "state=active");
	snprintf(r.what, sizeof(r.what), "%s/api/v1/targets", c->redacted);
	if (fetch_one(c, &r, &e) || open_data(&lx, &r, &e)) {
		req_release(&r);
		return 0;
	}
	/* every "scrapeInterval" at any depth */
	while ((t = json_next(&lx)) > JT_DONE) {
		if (t == JT_KEY && key_is(&lx, "scrapeInterval")) {
			char v[32];
			int64_t d;
			if (json_next(&lx) != JT_STR)
				continue;
			v[json_unescape(lx.tok, v, sizeof(v) - 1)] = 0;
			if (!time_parse_dur(v, &d) && d > 0 && (!best || d < best))
				best = d;
		}
	}
	req_release(&r);
	return best;
}

/*
 * Which known names have series in the window, and how many: counts[i] for
 * prom_names[i]; and the GPUs they describe (keys).
 */
struct keyset {
	char **k;
	size_t nr, alloc;
};

static int discover_names(struct conn *c, size_t *counts, struct keyset *keys, struct gl_err *err)
{
	const struct prom_remote_opts *o = c->o;
	struct buf q = { 0 }, re = { 0 };
	struct req r;
	struct json_lex lx;
	enum json_tok t;
	int rc = 0;

	static const char names_re[] = "{__name__=~\"gputally_gpu_.+|DCGM_FI_.+|nvidia_smi_.+\"";

	buf_add(&re, names_re, sizeof(names_re) - 1);
	for (size_t i = 0; i < (o->nmatch ? o->nmatch : 1); i++) {
		char inner[1024], sel[1200];
		if (o->nmatch && selector_inner(o->match[i], inner, sizeof(inner))) {
			free(re.p);
			return gl_err_set(err, GL_EUSAGE, "--match wants a selector in braces such as '{cluster=\"a\"}', got '%s'",
					  o->match[i]);
		}
		snprintf(sel, sizeof(sel), "%s%s%s}", re.p, o->nmatch && inner[0] ? "," : "", o->nmatch ? inner : "");
		add_param(&q, "match[]", sel);
	}
	free(re.p);
	add_time(&q, "start", o->start_ns);
	add_time(&q, "end", o->end_ns);
	req_init(&r, c, "/api/v1/series", q.p);
	free(q.p);
	snprintf(r.what, sizeof(r.what), "%s/api/v1/series", c->redacted);
	if ((rc = fetch_one(c, &r, err)) || (rc = open_data(&lx, &r, err)))
		goto out;
	if (json_next(&lx) != JT_ARR) {
		rc = gl_err_set(err, GL_EPARSE, "%s: \"data\" is not a list of series (is this a Prometheus server?)", r.what);
		goto out;
	}
	while ((t = json_next(&lx)) == JT_OBJ) {
		struct labels l;
		char key[160];
		bool known = false;

		memset(&l, 0, sizeof(l));
		l.gpu = -1;
		while ((t = json_next(&lx)) == JT_KEY) {
			bool is_name = key_is(&lx, "__name__");
			struct json_lex k = lx;
			if (json_next(&lx) != JT_STR) {
				rc = json_fail(&lx, &r, err);
				goto out;
			}
			if (is_name) {
				char name[128];
				const struct prom_name *pn;
				name[json_unescape(lx.tok, name, sizeof(name) - 1)] = 0;
				if ((pn = prom_name_find(name))) {
					counts[pn - prom_names]++;
					known = true;
				}
			} else {
				label_set(&l, &k, lx.tok);
			}
		}
		if (t != JT_OBJ_END) {
			rc = json_fail(&lx, &r, err);
			goto out;
		}
		/* a slice sizes the matrix as one GPU more, and its GPU as one */
		for (int pass = 0; known && pass < (l.mig[0] ? 2 : 1); pass++) {
			size_t i;
			if (pass)
				slice_key(&l, key, sizeof(key));
			else
				gpu_key(&l, key, sizeof(key));
			for (i = 0; i < keys->nr && strcmp(keys->k[i], key); i++)
				;
			if (i == keys->nr) {
				ALLOC_GROW(keys->k, keys->nr + 1, keys->alloc);
				keys->k[keys->nr++] = xstrdup(key);
			}
		}
	}
	if (t != JT_ARR_END)
		rc = json_fail(&lx, &r, err);
out:
	req_release(&r);
	return rc;
}

/* ---- GPUs, the chunk matrix, emission --------------------------------- */

struct cgpu {
	double *v;		/* [NSLOT][npts] */
	uint16_t *rank;		/* [NSLOT][npts]: 0 = no reading, else the name's rank */
	double xid_last;
	uint32_t s_uuid, s_name;
	long first_slice, next_slice;	/* a GPU's MIG slices, a list through pl->g; -1 ends */
};

struct puller {
	struct conn *c;
	struct prom_fleet *fl;
	struct ingest_sink *sink;
	struct ingest_sink *slice_sink;	/* MIG slices' samples, or NULL */
	const struct input_stat *in0;	/* the server's input: every sample comes from it */
	struct input_stat *per_name;	/* res->inputs + first per-name input */
	size_t *input_of;		/* prom_names index -> per_name index, SIZE_MAX none */
	struct cgpu *g;
	size_t galloc;
	size_t npts;
	int64_t t0_ns, step_ns;
	struct batch b;
	struct rec rec;
};

static uint32_t str_add(struct batch *b, const char *s)
{
	size_t n = strlen(s) + 1;
	uint32_t off;

	if (b->strs_len + n > b->strs_alloc) {
		size_t c = b->strs_alloc ? b->strs_alloc * 2 : 4096;
		while (c < b->strs_len + n)
			c *= 2;
		b->strs = xrealloc(b->strs, c);
		b->strs_alloc = c;
	}
	off = (uint32_t)b->strs_len;
	memcpy(b->strs + off, s, n);
	b->strs_len += n;
	return off;
}

static size_t gpu_new(struct puller *pl, const char *key, const char *node, const char *name, int index);

static size_t gpu_of(struct puller *pl, const struct labels *l)
{
	struct prom_fleet *fl = pl->fl;
	char key[160];
	const char *node = gpu_key(l, key, sizeof(key));
	size_t i;

	for (i = 0; i < fl->ngpus; i++)
		if (!strcmp(fl->gpus[i].key, key))
			return i;
	return gpu_new(pl, key, node, l->name, l->gpu);
}

static size_t gpu_new(struct puller *pl, const char *key, const char *node, const char *name, int index)
{
	struct prom_fleet *fl = pl->fl;
	size_t i = fl->ngpus;

	ALLOC_GROW(fl->gpus, fl->ngpus + 1, fl->gpus_alloc);
	memset(&fl->gpus[i], 0, sizeof(fl->gpus[i]));
	snprintf(fl->gpus[i].key, sizeof(fl->gpus[i].key), "%s", key);
	snprintf(fl->gpus[i].node, sizeof(fl->gpus[i].node), "%s", node);
	fl->gpus[i].index = index;
	fl->gpus[i].parent = -1;
	fl->gpus[i].share = NAN;
	fl->ngpus++;
	if (fl->ngpus > pl->galloc) {
		size_t old = pl->galloc;
		pl->galloc = fl->ngpus * 2;
		pl->g = xreallocarray(pl->g, pl->galloc, sizeof(*pl->g));
		memset(pl->g + old, 0, (pl->galloc - old) * sizeof(*pl->g));
	}
	pl->g[i].s_uuid = str_add(&pl->b, key);
	pl->g[i].s_name = str_add(&pl->b, name);
	pl->g[i].xid_last = 0;
	pl->g[i].first_slice = pl->g[i].next_slice = -1;
	return i;
}

/* A MIG slice (a series with GPU_I_ID): its own entry, listed under its GPU's. */
static size_t slice_of(struct puller *pl, const struct labels *l)
{
	struct prom_fleet *fl = pl->fl;
	size_t parent = gpu_of(pl, l), i;
	char key[160], name[200], node[sizeof(fl->gpus->node)];
	struct prom_gpu *sg;

	slice_key(l, key, sizeof(key));
	for (i = 0; i < fl->ngpus; i++)
		if (!strcmp(fl->gpus[i].key, key))
			return i;
	snprintf(name, sizeof(name), "%s%sMIG %s", l->name, l->name[0] ? " " : "", l->profile[0] ? l->profile : "?");
	/* a copy: gpu_new may move fl->gpus */
	snprintf(node, sizeof(node), "%s", fl->gpus[parent].node);
	i = gpu_new(pl, key, node, name, fl->gpus[parent].index);
	sg = &fl->gpus[i];
	sg->parent = (long)parent;
	sg->gi_id = atoi(l->mig);
	snprintf(sg->profile, sizeof(sg->profile), "%s", l->profile);
	sg->share = profile_share(l->profile, l->name);
	if (!isfinite(sg->share))
		fl->skipped_series++;	/* read, but neither priced nor in its GPU's busy */
	pl->g[i].next_slice = pl->g[parent].first_slice;
	pl->g[parent].first_slice = (long)i;
	return i;
}

static struct cgpu *chunk_gpu(struct puller *pl, size_t gi)
{
	struct cgpu *g = &pl->g[gi];

	if (!g->v) {
		g->v = xcalloc(NSLOT * pl->npts, sizeof(*g->v));
		g->rank = xcalloc(NSLOT * pl->npts, sizeof(*g->rank));
	}
	return g;
}

static void pod_span(struct puller *pl, size_t gi, const struct labels *l, int64_t t0, int64_t t1)
{
	struct prom_fleet *fl = pl->fl;
	const char *ns = l->xns[0] ? l->xns : l->ns, *pod = l->xpod[0] ? l->xpod : l->pod;
	const char *ct = l->xcontainer[0] ? l->xcontainer : l->container;
	struct prom_pod_span *s;

	if (!pod[0])
		return;
	for (size_t i = fl->npods; i-- > 0;) {
		s = &fl->pods[i];
		if (s->gpu == gi && !strcmp(s->pod, pod) && !strcmp(s->ns, ns) && !strcmp(s->container, ct) &&
		    t0 <= s->t1_ns + pl->step_ns && t1 >= s->t0_ns - pl->step_ns) {
			if (t0 < s->t0_ns)
				s->t0_ns = t0;
			if (t1 > s->t1_ns)
				s->t1_ns = t1;
			return;
		}
	}
	ALLOC_GROW(fl->pods, fl->npods + 1, fl->pods_alloc);
	s = &fl->pods[fl->npods++];
	memset(s, 0, sizeof(*s));
	s->gpu = (uint32_t)gi;
	snprintf(s->ns, sizeof(s->ns), "%s", ns);
	snprintf(s->pod, sizeof(s->pod), "%s", pod);
	snprintf(s->container, sizeof(s->container), "%s", ct);
	s->t0_ns = t0;
	s->t1_ns = t1;
}

/* A sample value as the server writes it: "1.5", "NaN", "+Inf" ... */
static bool sample_value(struct slice s, double *v)
{
	char tmp[64], *end;
	size_t n = s.n < sizeof(tmp) - 1 ? s.n : sizeof(tmp) - 1;

	if (s.n >= sizeof(tmp) || !n)
		return false;
	memcpy(tmp, s.p, n);
	tmp[n] = 0;
	errno = 0;
	*v = strtod(tmp, &end);
	return *end == 0 && errno == 0 && isfinite(*v);
}

/* Parse one query_range answer into the chunk matrix. */
static int parse_matrix(struct puller *pl, struct req *r, struct gl_err *err)
{
	const struct prom_name *pn = &prom_names[r->name];
	int slot = pn->extra == PX_FB_FREE ? SLOT_FB_FREE : pn->extra == PX_XID ? SLOT_XID : pn->metric;
	uint16_t rank = (uint16_t)(pn->prio * 256 + (255 - r->name));
	struct input_stat *in = &pl->per_name[pl->input_of[r->name]];
	struct json_lex lx;
	enum json_tok t;

	in->bytes += r->body.n;
	in->lines++;
	if (open_data(&lx, r, err))
		return err->code;
	if (json_next(&lx) != JT_OBJ)
		return json_fail(&lx, r, err);
	while ((t = json_next(&lx)) == JT_KEY) {
		if (key_is(&lx, "resultType")) {
			if (json_next(&lx) != JT_STR)
				return json_fail(&lx, r, err);
			if (!key_is(&lx, "matrix"))
				return gl_err_set(err, GL_EPARSE, "%s: the answer is not a matrix", r->what);
			continue;
		}
		if (!key_is(&lx, "result")) {
			t = json_next(&lx);
			if (t < 0 || ((t == JT_OBJ || t == JT_ARR) && json_skip(&lx, t) != 1))
				return json_fail(&lx, r, err);
			continue;
		}
		if (json_next(&lx) != JT_ARR)
			return json_fail(&lx, r, err);
		while ((t = json_next(&lx)) == JT_OBJ) {
			struct labels l;
			bool have_labels = false;
			size_t gi = 0;
			struct cgpu *g = NULL;
			int64_t first = INT64_MAX, last = INT64_MIN;

			memset(&l, 0, sizeof(l));
			l.gpu = -1;
			while ((t = json_next(&lx)) == JT_KEY) {
				if (key_is(&lx, "metric")) {
					if (json_next(&lx) != JT_OBJ)
						return json_fail(&lx, r, err);
					while ((t = json_next(&lx)) == JT_KEY) {
						struct json_lex k = lx;
						if (json_next(&lx) != JT_STR)
							return json_fail(&lx, r, err);
						label_set(&l, &k, lx.tok);
					}
					if (t != JT_OBJ_END)
						return json_fail(&lx, r, err);
					have_labels = true;
					continue;
				}
				if (!key_is(&lx, "values")) {
					t = json_next(&lx);
					if (t < 0 || ((t == JT_OBJ || t == JT_ARR) && json_skip(&lx, t) != 1))
						return json_fail(&lx, r, err);
					continue;
				}
				if (!have_labels)
					return gl_err_set(err, GL_EPARSE, "%s: a series' values come before its labels", r->what);
				if (l.mig[0]) {
					/* a MIG slice: its GPU gets samples from it too */
					gi = slice_of(pl, &l);
					chunk_gpu(pl, (size_t)pl->fl->gpus[gi].parent);
				} else {
					gi = gpu_of(pl, &l);
				}
				g = chunk_gpu(pl, gi);
				if (json_next(&lx) != JT_ARR)
					return json_fail(&lx, r, err);
				while ((t = json_next(&lx)) == JT_ARR) {
					int64_t ms, k, t_ns;
					double v;
					if (json_next(&lx) != JT_NUM || json_num_scaled(lx.tok, 3, &ms))
						return json_fail(&lx, r, err);
					if (json_next(&lx) != JT_STR)
						return json_fail(&lx, r, err);
					t_ns = ms * NS_PER_MS;
					if (!sample_value(lx.tok, &v) || prom_name_blank(pn, v)) {
						pl->fl->bad_values++;
						in->bad++;
					} else if (g && (t_ns < pl->t0_ns ||
							 (t_ns - pl->t0_ns) / pl->step_ns >= (int64_t)pl->npts ||
							 (t_ns - pl->t0_ns) % pl->step_ns)) {
						/* not one of the steps asked for: a server that is
						 * not quite Prometheus; counted, not guessed at */
						pl->fl->off_step++;
						in->bad++;
					} else if (g) {
						k = (t_ns - pl->t0_ns) / pl->step_ns;
						size_t at = (size_t)slot * pl->npts + (size_t)k;
						if (rank > g->rank[at]) {
							g->rank[at] = rank;
							g->v[at] = v * pn->scale;
						}
						in->records++;
						/* a pod's span breaks where its series does */
						if (last != INT64_MIN && t_ns != last + pl->step_ns) {
							pod_span(pl, gi, &l, first, last + pl->step_ns);
							first = t_ns;
						}
						if (first == INT64_MAX)
							first = t_ns;
						last = t_ns;
						if (in->t_first_ns == INT64_MIN || t_ns < in->t_first_ns)
							in->t_first_ns = t_ns;
						if (t_ns > in->t_last_ns)
							in->t_last_ns = t_ns;
					}
					if (json_next(&lx) != JT_ARR_END)
						return json_fail(&lx, r, err);
				}
				if (t != JT_ARR_END)
					return json_fail(&lx, r, err);
			}
			if (t != JT_OBJ_END)
				return json_fail(&lx, r, err);
			if (g && last != INT64_MIN)
				pod_span(pl, gi, &l, first, last + pl->step_ns);
		}
		if (t != JT_ARR_END)
			return json_fail(&lx, r, err);
	}
	if (t != JT_OBJ_END)
		return json_fail(&lx, r, err);
	return 0;
}

static int emit(struct puller *pl, struct rec *r)
{
	return pl->sink->rec(pl->sink->ud, pl->in0, r, &pl->b);
}

static bool has(const struct puller *pl, const struct cgpu *g, int slot, size_t k)
{
	return g->rank[(size_t)slot * pl->npts + k] != 0;
}

static double val(const struct puller *pl, const struct cgpu *g, int slot, size_t k)
{
	return g->v[(size_t)slot * pl->npts + k];
}

/*
 * A GPU in MIG mode at step k: its busy share is its slices' utilization
 * weighted by each slice's share of the compute (a slice not made is idle
 * compute), replacing the GPU's own utilization, which NVML does not
 * measure in MIG mode; its memory used is the slices' sum where the GPU
 * reports none of its own.  Slices of unknown share are left out.
 */
static void mig_fill(const struct puller *pl, size_t gi, size_t k, struct rec *r)
{
	double util = 0, mem = 0;
	bool any_util = false, any_mem = false;

	for (long si = pl->g[gi].first_slice; si >= 0; si = pl->g[si].next_slice) {
		const struct cgpu *sg = &pl->g[si];
		double share = pl->fl->gpus[si].share;
		if (!sg->v)
			continue;
		if (has(pl, sg, M_UTIL_GPU, k) && isfinite(share)) {
			util += share * val(pl, sg, M_UTIL_GPU, k);
			any_util = true;
		}
		if (has(pl, sg, M_MEM_USED, k)) {
			mem += val(pl, sg, M_MEM_USED, k);
			any_mem = true;
		}
	}
	if (any_util) {
		r->present |= 1u << M_UTIL_GPU;
		r->v[M_UTIL_GPU] = util;
	}
	if (any_mem && !(r->present & (1u << M_MEM_USED))) {
		r->present |= 1u << M_MEM_USED;
		r->v[M_MEM_USED] = mem;
	}
}

/* Every step of the chunk, every GPU with a reading: one sample. */
static int emit_chunk(struct puller *pl, size_t npts)
{
	for (size_t k = 0; k < npts; k++) {
		int64_t t = pl->t0_ns + (int64_t)k * pl->step_ns;
		for (size_t gi = 0; gi < pl->fl->ngpus; gi++) {
			struct cgpu *g = &pl->g[gi];
			struct rec *r = &pl->rec;
			int rc;

			bool slice = pl->fl->gpus[gi].parent >= 0;

			if (!g->v || (slice && !pl->slice_sink))
				continue;
			memset(r, 0, offsetof(struct rec, v));
			r->kind = REC_SAMPLE;
			r->time_kind = TK_ABS;
			r->t_ns = t;
			r->gpu_index = pl->fl->gpus[gi].index;
			r->uuid = g->s_uuid;
			r->name = g->s_name;
			for (int m = 0; m < M__COUNT; m++)
				if (g->rank[(size_t)m * pl->npts + k]) {
					r->present |= 1u << m;
					r->v[m] = g->v[(size_t)m * pl->npts + k];
				}
			if (!(r->present & (1u << M_MEM_TOTAL)) && (r->present & (1u << M_MEM_USED)) &&
			    g->rank[(size_t)SLOT_FB_FREE * pl->npts + k]) {
				r->present |= 1u << M_MEM_TOTAL;
				r->v[M_MEM_TOTAL] = r->v[M_MEM_USED] + g->v[(size_t)SLOT_FB_FREE * pl->npts + k];
			}
			if (g->first_slice >= 0)
				mig_fill(pl, gi, k, r);
			if (!r->present)
				continue;
			r->line = pl->fl->chunks;
			if (slice) {
				/* a slice goes to its own timeline (the report's MIG table) */
				if ((rc = pl->slice_sink->rec(pl->slice_sink->ud, pl->in0, r, &pl->b)))
					return rc;
				continue;
			}
			if ((rc = emit(pl, r)))
				return rc;
			if (g->rank[(size_t)SLOT_XID * pl->npts + k]) {
				double x = g->v[(size_t)SLOT_XID * pl->npts + k];
				if (x != g->xid_last && x > 0) {
					char msg[96];
					snprintf(msg, sizeof(msg), "Xid %.0f (DCGM_FI_DEV_XID_ERRORS)", x);
					memset(r, 0, offsetof(struct rec, v));
					r->kind = REC_EVENT;
					r->time_kind = TK_ABS;
					r->ev = EV_XID;
					r->t_ns = t;
					r->gpu_index = pl->fl->gpus[gi].index;
					r->uuid = g->s_uuid;
					r->name = str_add(&pl->b, msg);
					rec_event_defaults(r);
					kev_set_xid(r, (int32_t)x);
					if ((rc = emit(pl, r)))
						return rc;
				}
				g->xid_last = x;
			}
		}
	}
	return 0;
}

static void chunk_clear(struct puller *pl)
{
	for (size_t gi = 0; gi < pl->fl->ngpus; gi++)
		if (pl->g[gi].v) {
			memset(pl->g[gi].rank, 0, NSLOT * pl->npts * sizeof(*pl->g[gi].rank));
		}
}

/* A window that could not be read: a gap for every GPU, said once. */
static int chunk_failed(struct puller *pl, struct req *r, int64_t t0, int64_t t1)
{
	char a[40], b[40], msg[1400];
	struct rec *rec = &pl->rec;

	pl->fl->failed_chunks++;
	snprintf(msg, sizeof(msg), "%s: %s after %d tries: %s to %s is a gap for every GPU", r->what, r->fail,
		 r->attempt, time_rfc3339(a, sizeof(a), t0), time_rfc3339(b, sizeof(b), t1));
	if (!pl->c->o->quiet)
		fprintf(stderr, "gputally: %s\n", msg);
	memset(rec, 0, offsetof(struct rec, v));
	rec->kind = REC_BAD;
	rec->time_kind = TK_ABS;
	rec->t_ns = t0;
	rec->line = pl->fl->chunks;
	rec->name = str_add(&pl->b, msg);
	pl->per_name[pl->input_of[r->name]].bad++;
	return emit(pl, rec);
}

/*
 * max_series: the most series one name has (it sizes an answer); gpus: an
 * upper bound on the GPUs (it sizes the matrix).
 */
static int pull(struct puller *pl, const size_t *names, size_t nnames, size_t max_series, size_t gpus)
{
	const struct prom_remote_opts *o = pl->c->o;
	size_t mem = o->mem_budget ? o->mem_budget : DEF_MEM;
	size_t body = (o->max_body ? o->max_body : DEF_MAX_BODY) / 2;
	size_t per = NSLOT * (sizeof(double) + sizeof(uint16_t));
	size_t npts = MAX_POINTS;
	int64_t total = (o->end_ns - pl->t0_ns) / pl->step_ns + 1;
	struct req *rs = xcalloc(nnames, sizeof(*rs));
	int rc = 0;

	if (max_series < 1)
		max_series = 1;
	if (gpus < 1)
		gpus = 1;
	/* under the points limit, the memory bound, and half the body limit */
	if (npts > mem / (per * gpus))
		npts = mem / (per * gpus);
	if (npts > body / (BYTES_PER_POINT * max_series))
		npts = body / (BYTES_PER_POINT * max_series);
	if (npts < 16)
		npts = 16;
	if ((int64_t)npts > total)
		npts = (size_t)total;
	pl->npts = npts;
	for (int64_t k0 = 0; k0 < total && !rc; k0 += (int64_t)npts) {
		int64_t n = total - k0 < (int64_t)npts ? total - k0 : (int64_t)npts;
		int64_t c0 = pl->t0_ns + k0 * pl->step_ns, c1 = c0 + (n - 1) * pl->step_ns;
		int64_t save_t0 = pl->t0_ns;
		struct req *bad = NULL;
		char a[40], b[40];

		for (size_t i = 0; i < nnames; i++) {
			struct buf q = { 0 };
			char *qs = name_query(o, prom_names[names[i]].name), st[40];
			add_param(&q, "query", qs);
			free(qs);
			add_time(&q, "start", c0);
			add_time(&q, "end", c1);
			snprintf(st, sizeof(st), "%" PRId64 ".%03" PRId64, pl->step_ns / NS_PER_S,
				 (pl->step_ns % NS_PER_S) / NS_PER_MS);
			add_param(&q, "step", st);
			req_init(&rs[i], pl->c, "/api/v1/query_range", q.p);
			free(q.p);
			rs[i].name = names[i];
			snprintf(rs[i].what, sizeof(rs[i].what), "%s query_range %s from %s to %s", pl->c->redacted,
				 prom_names[names[i]].name, time_rfc3339(a, sizeof(a), c0), time_rfc3339(b, sizeof(b), c1));
		}
		if (run_all(pl->c, rs, nnames)) {
			rc = GL_ENOMEM;
			break;
		}
		pl->t0_ns = c0;
		chunk_clear(pl);
		for (size_t i = 0; i < nnames && !bad; i++) {
			struct gl_err e = { 0 };
			if (!rs[i].ok)
				bad = &rs[i];
			else if (parse_matrix(pl, &rs[i], &e)) {
				/* an answer that is not a Prometheus matrix: no retry helps */
				snprintf(rs[i].fail, sizeof(rs[i].fail), "%s", e.msg);
				bad = &rs[i];
			}
		}
		pl->fl->chunks++;
		if (bad)
			rc = chunk_failed(pl, bad, c0, c1 + pl->step_ns);
		else
			rc = emit_chunk(pl, (size_t)n);
		pl->t0_ns = save_t0;
		for (size_t i = 0; i < nnames; i++)
			req_release(&rs[i]);
	}
	free(rs);
	return rc;
}

int prom_remote_ingest(const struct prom_remote_opts *o, struct ingest_sink *sink,
		       struct ingest_result *res, struct prom_fleet *fl, struct gl_err *err)
{
	struct conn c;
	struct puller pl;
	size_t counts[64] = { 0 }, names[64], nnames = 0, max_series = 0, first_in;
	struct keyset keys = { 0 };
	size_t gpus;
	int rc;
	char why[96];

	memset(fl, 0, sizeof(*fl));
	memset(&pl, 0, sizeof(pl));
	fl->active = true;
	if (prom_names_count > 64)
		return gl_err_set(err, GL_EUNSUPPORTED, "too many metric names");
	if (o->end_ns <= o->start_ns)
		return gl_err_set(err, GL_EUSAGE, "--since must be before --until");
	if ((rc = conn_open(&c, o, fl, err)))
		goto out;
	snprintf(fl->url, sizeof(fl->url), "%s", c.redacted);
	fl->step_ns = o->step_ns;
	if (!fl->step_ns) {
		fl->step_ns = discover_step(&c);
		if (!fl->step_ns)
			fl->step_ns = 15 * NS_PER_S;
	}
	fl->step_ns = fl->step_ns / NS_PER_MS * NS_PER_MS;
	if (fl->step_ns <= 0)
		fl->step_ns = NS_PER_MS;
	fl->start_ns = o->start_ns / NS_PER_MS * NS_PER_MS;
	fl->end_ns = o->end_ns;
	rc = discover_names(&c, counts, &keys, err);
	gpus = keys.nr;
	for (size_t i = 0; i < keys.nr; i++)
		free(keys.k[i]);
	free(keys.k);
	if (rc)
		goto out;
	for (size_t i = 0; i < prom_names_count; i++)
		if (counts[i]) {
			names[nnames++] = i;
			if (counts[i] > max_series)
				max_series = counts[i];
		}
	if (!nnames) {
		rc = gl_err_set(err, GL_ENOFMT, "%s: no GPU metric of gputally, dcgm-exporter or nvidia_gpu_exporter "
				"in the window%s", c.redacted, o->nmatch ? " matching --match" : "");
		goto out;
	}
	/* the inputs: the server, then one per name (no pointer kept across growth) */
	first_in = res->nr;
	ALLOC_GROW(res->inputs, res->nr + 1 + nnames, res->alloc);
	for (size_t i = 0; i <= nnames; i++) {
		struct input_stat *in = &res->inputs[res->nr++];
		const struct prom_name *pn = i ? &prom_names[names[i - 1]] : NULL;
		char path[400];
		memset(in, 0, sizeof(*in));
		snprintf(path, sizeof(path), "%s%s%s", c.redacted, pn ? " " : "", pn ? pn->name : "");
		in->path = xstrdup(path);
		in->format = &prom_remote_format;
		if (pn)
			snprintf(in->why, sizeof(in->why), "%s%s%s", prom_exporter_name[pn->exporter],
				 pn->why ? ": " : "", pn->why ? pn->why : "");
		else
			snprintf(in->why, sizeof(in->why), "--prometheus, %zu metric name(s), step %s", nnames,
				 time_human_dur(why, sizeof(why), fl->step_ns));
		in->compression = "http";
		in->time_basis = "Prometheus query_range steps (UTC)";
		in->t_first_ns = INT64_MIN;
		in->t_last_ns = INT64_MIN;
	}
	pl.c = &c;
	pl.fl = fl;
	pl.sink = sink;
	pl.slice_sink = o->slice_sink;
	pl.in0 = &res->inputs[first_in];
	pl.per_name = &res->inputs[first_in + 1];
	pl.input_of = xcalloc(prom_names_count, sizeof(*pl.input_of));
	for (size_t i = 0; i < nnames; i++)
		pl.input_of[names[i]] = i;
	pl.t0_ns = fl->start_ns;
	pl.step_ns = fl->step_ns;
	rc = pull(&pl, names, nnames, max_series, gpus);
	{
		struct input_stat *in0 = &res->inputs[first_in];
		for (size_t i = 0; i < nnames; i++) {
			struct input_stat *in = &pl.per_name[i];
			in0->bytes += in->bytes;
			in0->lines += in->lines;
			in0->records += in->records;
			in0->bad += in->bad;
			if (in->t_first_ns != INT64_MIN &&
			    (in0->t_first_ns == INT64_MIN || in->t_first_ns < in0->t_first_ns))
				in0->t_first_ns = in->t_first_ns;
			if (in->t_last_ns > in0->t_last_ns)
				in0->t_last_ns = in->t_last_ns;
		}
		if (fl->failed_chunks)
			snprintf(in0->skip_reason, sizeof(in0->skip_reason),
				 "%" PRIu64 " of %" PRIu64 " time chunk(s) could not be read: gaps (see skipped[])",
				 fl->failed_chunks, fl->chunks);
	}
	if (rc > 0)
		goto out;	/* the sink's own code */
	if (rc < 0)
		gl_err_set(err, rc, "out of memory pulling from %s", c.redacted);
out:
	if (pl.g) {
		for (size_t i = 0; i < pl.galloc; i++) {
			free(pl.g[i].v);
			free(pl.g[i].rank);
		}
		free(pl.g);
	}
	free(pl.input_of);
	free(pl.b.strs);
	conn_close(&c);
	return rc;
}

void prom_fleet_release(struct prom_fleet *f)
{
	free(f->gpus);
	free(f->pods);
	f->gpus = NULL;
	f->pods = NULL;
	f->ngpus = f->npods = 0;
}
