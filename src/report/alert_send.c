/* SPDX-License-Identifier: MIT */
/* `gputally alert` delivery: Alertmanager's v2 API and webhooks (alert_send.h). */
#include "report/alert_send.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "formats/curl_dl.h"
#include "report/alert_out.h"
#include "util/jsonw.h"
#include "util/timeutil.h"

/* ---- what an alert says ------------------------------------------------ */

/* Firing at the end of its GPU's data (or about a file, judged at --now): not
 * resolved, so Alertmanager keeps it active until the next run says again. */
static bool ongoing(const struct alert_eval *ev, const struct alert *a)
{
	int64_t end;

	if (a->gpu < 0 || a->gpu >= ev->an->tl.ngpus)
		return true;
	/* the end of what is known of the GPU: its last sample, or a later event */
	end = ev->an->tl.gpus[a->gpu].last_ns;
	for (size_t i = 0; i < ev->n; i++)
		if (ev->alerts[i].gpu == a->gpu && ev->alerts[i].end_ns > end)
			end = ev->alerts[i].end_ns;
	return a->end_ns >= end;
}

static void value_text(char *buf, size_t cap, const struct alert *a)
{
	if (isnan(a->value))
		snprintf(buf, cap, "-");
	else
		snprintf(buf, cap, "%.6g", a->value);
}

/* One line of a chat message: rule, GPU, time and what happened. */
static void chat_line(const struct alert_eval *ev, const struct alert *a, char *buf, size_t cap)
{
	char g[112], t0[40], t1[40];

	snprintf(buf, cap, "%s %s %s: %s %s to %s%s", a->rule->critical ? "CRITICAL" : "warning", a->rule->id,
		 alert_gpu_label(ev, a->gpu, g, sizeof(g)), a->message, time_rfc3339(t0, sizeof(t0), a->start_ns),
		 time_rfc3339(t1, sizeof(t1), a->end_ns), ongoing(ev, a) ? " (still firing)" : "");
}

static void am_body(struct jsonw *w, const struct alert_eval *ev, const struct alert_send_opts *o)
{
	char name[96], g[112], v[32];

	jsonw_arr_begin(w);
	for (size_t i = 0; i < ev->n; i++) {
		const struct alert *a = &ev->alerts[i];
		const struct gpu_ident *id = a->gpu >= 0 && a->gpu < ev->an->tl.ngpus ? &ev->an->tl.gpus[a->gpu].id : NULL;

		alert_prom_name(name, sizeof(name), a->rule->id);
		value_text(v, sizeof(v), a);
		jsonw_obj_begin(w);
		jsonw_key(w, "labels");
		jsonw_obj_begin(w);
		jsonw_kstr(w, "alertname", name);
		jsonw_kstr(w, "rule", a->rule->id);
		jsonw_kstr(w, "severity", a->rule->critical ? "critical" : "warning");
		jsonw_kstr(w, "gpu", alert_gpu_label(ev, a->gpu, g, sizeof(g)));
		if (id && id->uuid[0])
			jsonw_kstr(w, "uuid", id->uuid);
		if (!id && a->source[0])
			jsonw_kstr(w, "file", a->source);
		jsonw_kstr(w, "job", "gputally");
		for (int l = 0; l < o->nlabels; l++) {
			const char *eq = strchr(o->labels[l], '=');
			char key[64];
			snprintf(key, sizeof(key), "%.*s", (int)(eq - o->labels[l]), o->labels[l]);
			jsonw_kstr(w, key, eq + 1);
		}
		jsonw_obj_end(w);
		jsonw_key(w, "annotations");
		jsonw_obj_begin(w);
		jsonw_kstr(w, "summary", a->message);
		jsonw_kstr(w, "value", v);
		if (a->count > 1) {
			char cnt[16];	/* Alertmanager's annotations are strings */
			snprintf(cnt, sizeof(cnt), "%u", (unsigned)a->count);
			jsonw_kstr(w, "count", cnt);
		}
		if (a->source[0])
			jsonw_kstr(w, "source", a->source);
		jsonw_obj_end(w);
		jsonw_ktime(w, "startsAt", a->start_ns);
		if (!ongoing(ev, a))
			jsonw_ktime(w, "endsAt", a->end_ns);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
}

static void slack_body(struct jsonw *w, const struct alert_eval *ev)
{
	char *text = NULL, line[600];
	size_t n = 0;
	FILE *m = open_memstream(&text, &n);

	if (!m)
		return;
	fprintf(m, "gputally: %zu alert%s fired", ev->n, ev->n == 1 ? "" : "s");
	for (size_t i = 0; i < ev->n; i++) {
		chat_line(ev, &ev->alerts[i], line, sizeof(line));
		fprintf(m, "\n- %s", line);
	}
	if (ev->dropped)
		fprintf(m, "\n(%llu more not listed)", (unsigned long long)ev->dropped);
	fclose(m);
	jsonw_obj_begin(w);
	jsonw_kstr(w, "text", text ? text : "");
	jsonw_obj_end(w);
	free(text);
}

/* A Teams message with one Adaptive Card: a title, then a line per alert. */
static void teams_body(struct jsonw *w, const struct alert_eval *ev)
{
	char line[600], title[80];

	snprintf(title, sizeof(title), "gputally: %zu alert%s fired", ev->n, ev->n == 1 ? "" : "s");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "type", "message");
	jsonw_key(w, "attachments");
	jsonw_arr_begin(w);
	jsonw_obj_begin(w);
	jsonw_kstr(w, "contentType", "application/vnd.microsoft.card.adaptive");
	jsonw_key(w, "content");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "$schema", "http://adaptivecards.io/schemas/adaptive-card.json");
	jsonw_kstr(w, "type", "AdaptiveCard");
	jsonw_kstr(w, "version", "1.4");
	jsonw_key(w, "body");
	jsonw_arr_begin(w);
	jsonw_obj_begin(w);
	jsonw_kstr(w, "type", "TextBlock");
	jsonw_kstr(w, "weight", "Bolder");
	jsonw_kstr(w, "size", "Medium");
	jsonw_kstr(w, "text", title);
	jsonw_obj_end(w);
	for (size_t i = 0; i < ev->n; i++) {
		chat_line(ev, &ev->alerts[i], line, sizeof(line));
		jsonw_obj_begin(w);
		jsonw_kstr(w, "type", "TextBlock");
		jsonw_kbool(w, "wrap", true);
		jsonw_kstr(w, "text", line);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

char *alert_send_body(const struct alert_eval *ev, enum alert_dest_kind kind, const struct alert_send_opts *o)
{
	char *body = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&body, &n);
	struct jsonw *w;

	if (!m)
		return NULL;
	if (kind == AD_WEBHOOK_JSON) {
		alert_json(m, ev, o->profile);
		fclose(m);
		return body;
	}
	if (!(w = malloc(sizeof(*w)))) {
		fclose(m);
		free(body);
		return NULL;
	}
	jsonw_init(w, m, false);
	if (kind == AD_ALERTMANAGER)
		am_body(w, ev, o);
	else if (kind == AD_WEBHOOK_SLACK)
		slack_body(w, ev);
	else
		teams_body(w, ev);
	jsonw_flush(w);
	free(w);
	fputc('\n', m);
	fclose(m);
	return body;
}

/* ---- posting ------------------------------------------------------------ */

void alert_send_redact(char *buf, size_t cap, const char *url)
{
	const char *p = strstr(url, "://"), *host, *end, *at;

	if (!p) {
		snprintf(buf, cap, "(a URL without a scheme)");
		return;
	}
	host = p + 3;
	end = host + strcspn(host, "/?#");
	at = memchr(host, '@', (size_t)(end - host));
	if (at)
		host = at + 1;
	snprintf(buf, cap, "%.*s://%.*s%s", (int)(p - url), url, (int)(end - host), host, *end ? "/..." : "");
}

static size_t discard(char *p, size_t size, size_t n, void *ud)
{
	(void)p;
	(void)ud;
	return size * n;
}

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) != 0)
		;
}

int alert_send(const struct alert_eval *ev, enum alert_dest_kind kind, const char *url,
	       const struct alert_send_opts *o, struct gl_err *err)
{
	char where[300], full[2048], why[CURL_ERROR_SIZE + 64] = "";
	struct curl_slist *hdrs = NULL;
	double wait = o->retry_wait_s;
	char *body;
	CURL *h;
	int rc = GL_EIO;

	alert_send_redact(where, sizeof(where), url);
	if (!ev->n)
		return 0;
	if (kind == AD_ALERTMANAGER) {
		size_t n = strlen(url);
		if ((size_t)snprintf(full, sizeof(full), "%s%sapi/v2/alerts", url, n && url[n - 1] == '/' ? "" : "/") >=
		    sizeof(full))
			return gl_err_set(err, GL_EIO, "--alertmanager: the URL %s is too long", where);
	} else if ((size_t)snprintf(full, sizeof(full), "%s", url) >= sizeof(full))
		return gl_err_set(err, GL_EIO, "--webhook: the URL %s is too long", where);
	if (curl_dl_load(err))
		return err->code;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(h = curl_easy_init()))
		return gl_err_set(err, GL_EIO, "libcurl could not start");
	if (!(body = alert_send_body(ev, kind, o))) {
		curl_easy_cleanup(h);
		return gl_err_set(err, GL_ENOMEM, "out of memory");
	}
	hdrs = curl_slist_append(hdrs, "Content-Type: application/json");
	for (int attempt = 0; attempt <= o->retries; attempt++) {
		long status = 0;
		CURLcode cc;

		if (attempt) {
			nap(wait);
			wait *= 2;
		}
		curl_easy_reset(h);
		curl_easy_setopt(h, CURLOPT_URL, full);
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, discard);
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(o->timeout_s * 1000));
		curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(o->timeout_s * 1000));
		curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
		curl_easy_setopt(h, CURLOPT_USERAGENT, "gputally");
		curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
		cc = curl_easy_perform(h);
		if (cc == CURLE_OK)
			curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
		if (cc == CURLE_OK && status >= 200 && status < 300) {
			rc = 0;
			break;
		}
		if (cc != CURLE_OK)
			snprintf(why, sizeof(why), "%s", curl_easy_strerror(cc));
		else
			snprintf(why, sizeof(why), "HTTP status %ld", status);
		/* a refusal of the request itself will not change on a retry */
		if (cc == CURLE_OK && status >= 400 && status < 500 && status != 408 && status != 429)
			break;
	}
	if (rc)
		gl_err_set(err, GL_EIO, "%s %s: %s", kind == AD_ALERTMANAGER ? "--alertmanager" : "--webhook", where, why);
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(h);
	free(body);
	return rc;
}
