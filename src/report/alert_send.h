/* SPDX-License-Identifier: MIT */
/*
 * `gputally alert` delivery: the alerts that fired, posted to Alertmanager's
 * v2 API (which then routes, groups, silences and mails them) or to a
 * webhook as gputally's JSON, a Slack message or a Teams card.  docs/alert.md
 * "Delivery".  libcurl is loaded at the first post (formats/curl_dl.h).
 */
#ifndef REPORT_ALERT_SEND_H
#define REPORT_ALERT_SEND_H

#include "analysis/alert.h"
#include "util/err.h"

enum alert_dest_kind {
	AD_ALERTMANAGER,	/* POST URL/api/v2/alerts */
	AD_WEBHOOK_JSON,	/* POST URL, the document of `alert --json` */
	AD_WEBHOOK_SLACK,	/* POST URL, {"text": ...} */
	AD_WEBHOOK_TEAMS,	/* POST URL, an Adaptive Card message */
};

#define ALERT_SEND_MAX_LABELS 16

struct alert_send_opts {
	double timeout_s;	/* one attempt, connection included */
	int retries;		/* further attempts after a failure that may pass */
	double retry_wait_s;	/* before the first retry; doubled for each next one */
	const char *labels[ALERT_SEND_MAX_LABELS];	/* KEY=VALUE, added to each alert */
	int nlabels;
	const char *profile;	/* for the JSON body; NULL: none */
};

/* Render the body for kind; a malloc'ed NUL-terminated string (the caller
 * frees it), NULL when out of memory.  Exposed for the tests. */
char *alert_send_body(const struct alert_eval *ev, enum alert_dest_kind kind, const struct alert_send_opts *o);

/* Post the alerts to url (nothing is posted when none fired).  0, or GL_EIO
 * with err naming the destination without its credentials, path or query. */
int alert_send(const struct alert_eval *ev, enum alert_dest_kind kind, const char *url,
	       const struct alert_send_opts *o, struct gl_err *err);

/* scheme://host[:port] of url, with no user, password, path or query: what a
 * message may show of a URL that can hold a secret (a Slack hook's path). */
void alert_send_redact(char *buf, size_t cap, const char *url);

#endif
