/* SPDX-License-Identifier: MIT */
/*
 * GET /metrics and GET /health over HTTP (libmicrohttpd, one internal
 * polling thread).  Loopback only unless told otherwise; connection count,
 * idle time and per-connection memory are bounded, so a slow or hostile
 * client costs a socket, never a tick: handlers only copy the snapshot of
 * prom_pub (publish.h) out under its mutex.
 */
#ifndef RECORD_HTTP_H
#define RECORD_HTTP_H

#include <stdbool.h>
#include <stdint.h>

#include "record/publish.h"
#include "util/err.h"

#define HTTP_MAX_CONNECTIONS 16
#define HTTP_TIMEOUT_S 5

struct http_server;

/* 0 if addr is an address http_start() accepts (with any_addr as given); else GL_EUSAGE. */
int http_check_addr(const char *addr, bool any_addr, struct gl_err *err);

/*
 * Listen on addr ("127.0.0.1:9400", "[::1]:9400"; port 0 picks one).  A
 * non-loopback address is refused unless any_addr.  stale_ns: /health
 * answers 503 once the newest snapshot is older than this.
 */
struct http_server *http_start(const char *addr, bool any_addr, struct prom_pub *pub,
			       int64_t stale_ns, struct gl_err *err);
/* The port actually bound (useful with port 0). */
unsigned int http_port(const struct http_server *h);
void http_stop(struct http_server *h);

#endif
