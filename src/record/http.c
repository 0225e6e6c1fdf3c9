/* SPDX-License-Identifier: MIT */
/* /metrics and /health over libmicrohttpd (see http.h). */
#include "record/http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

#include "record/ralloc.h"
#include "util/dlsyms.h"
#include "util/timeutil.h"

/*
 * libmicrohttpd (and the TLS stack it pulls in: nine libraries) is loaded
 * only when --listen asks for it: linked in, it added 1.6 ms to the start of
 * every gputally command.  The header still gives every type and constant.
 */
#define MHD_LIB "libmicrohttpd.so.12"

static struct {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
} mhd;

static const struct dl_sym mhd_syms[] = {
	{ "MHD_start_daemon", (void **)&mhd.start_daemon },
	{ "MHD_stop_daemon", (void **)&mhd.stop_daemon },
	{ "MHD_get_daemon_info", (void **)&mhd.get_daemon_info },
	{ "MHD_create_response_from_buffer", (void **)&mhd.create_response_from_buffer },
	{ "MHD_add_response_header", (void **)&mhd.add_response_header },
	{ "MHD_queue_response", (void **)&mhd.queue_response },
	{ "MHD_destroy_response", (void **)&mhd.destroy_response },
};

/* Called once, from http_start() on the main thread. */
static int mhd_load(struct gl_err *err)
{
	const char *why;
	int rc;

	if (mhd.start_daemon)
		return 0;
	rc = dl_load_syms(MHD_LIB, mhd_syms, sizeof(mhd_syms) / sizeof(mhd_syms[0]), &why);
	if (rc == -1)
		return gl_err_set(err, GL_EIO, "--listen needs %s (Debian package libmicrohttpd12): %s",
				  MHD_LIB, why);
	if (rc)
		return gl_err_set(err, GL_EIO, "--listen: %s has no %s", MHD_LIB, why);
	return 0;
}

/* Requests are a line and a few headers: anything bigger is refused. */
#define HTTP_CONN_MEMORY (16 * 1024)

struct http_server {
	struct MHD_Daemon *d;
	struct prom_pub *pub;
	int64_t stale_ns;
	unsigned int port;
};

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int code, const char *type,
			     struct MHD_Response *r)
{
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	mhd.add_response_header(r, "Cache-Control", "no-store");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = mhd.queue_response(c, code, r);
	mhd.destroy_response(r);
	return ret;
}

static enum MHD_Result text(struct MHD_Connection *c, unsigned int code, const char *s)
{
	return reply(c, code, "text/plain; charset=utf-8",
		     mhd.create_response_from_buffer(strlen(s), (void *)(uintptr_t)s,
						     MHD_RESPMEM_PERSISTENT));
}

static enum MHD_Result serve_metrics(struct http_server *h, struct MHD_Connection *c)
{
	size_t cap = prom_pub_cap(h->pub), n;
	char *buf = malloc(cap ? cap : 1);	/* this thread, never the sampler's */

	if (!buf)
		return MHD_NO;
	n = prom_pub_copy(h->pub, buf, cap, NULL);
	if (!n) {
		free(buf);
		return text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no sample yet\n");
	}
	return reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8",
		     mhd.create_response_from_buffer(n, buf, MHD_RESPMEM_MUST_FREE));
}

static enum MHD_Result serve_health(struct http_server *h, struct MHD_Connection *c)
{
	int64_t put_ns = 0;
	char one[1];
	size_t n = prom_pub_copy(h->pub, one, 0, &put_ns);

	(void)n;
	if (!put_ns)
		return text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "starting\n");
	if (mono_ns() - put_ns > h->stale_ns)
		return text(c, MHD_HTTP_SERVICE_UNAVAILABLE, "stalled: no sample recently\n");
	return text(c, MHD_HTTP_OK, "ok\n");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct http_server *h = cls;

	(void)version;
	(void)upload;
	(void)con_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET\n");
	if (*upload_size)	/* a GET with a body: refuse rather than read it */
		return text(c, MHD_HTTP_BAD_REQUEST, "no body expected\n");
	if (!strcmp(url, "/metrics"))
		return serve_metrics(h, c);
	if (!strcmp(url, "/health"))
		return serve_health(h, c);
	return text(c, MHD_HTTP_NOT_FOUND, "not found: try /metrics or /health\n");
}

/* "1.2.3.4:P", "[::1]:P"; also "localhost:P" for 127.0.0.1. */
static int parse_addr(const char *s, struct sockaddr_storage *ss, bool *loopback)
{
	const char *colon = strrchr(s, ':');
	char host[64];
	size_t hn;
	char *end;
	unsigned long port;

	if (!colon || !colon[1])
		return -1;
	port = strtoul(colon + 1, &end, 10);
	if (*end || port > 65535 || colon[1] == '-' || colon[1] == '+')
		return -1;
	hn = (size_t)(colon - s);
	if (s[0] == '[') {
		if (hn < 3 || s[hn - 1] != ']')
			return -1;
		s++;
		hn -= 2;
	}
	if (hn == 0 || hn >= sizeof(host))
		return -1;
	memcpy(host, s, hn);
	host[hn] = 0;
	if (!strcmp(host, "localhost"))
		snprintf(host, sizeof(host), "127.0.0.1");
	memset(ss, 0, sizeof(*ss));
	{
		struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
		if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
			a4->sin_family = AF_INET;
			a4->sin_port = htons((uint16_t)port);
			*loopback = (ntohl(a4->sin_addr.s_addr) >> 24) == 127;
			return 0;
		}
		if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
			a6->sin6_family = AF_INET6;
			a6->sin6_port = htons((uint16_t)port);
			*loopback = IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr);
			return 0;
		}
	}
	return -1;
}

static int check_addr(const char *addr, bool any_addr, struct sockaddr_storage *ss,
		      struct gl_err *err)
{
	bool loopback = false;

	if (parse_addr(addr, ss, &loopback))
		return gl_err_set(err, GL_EUSAGE,
				  "--listen wants ADDR:PORT with a numeric address, such as 127.0.0.1:9400 or [::1]:9400, got '%s'",
				  addr);
	if (!loopback && !any_addr)
		return gl_err_set(err, GL_EUSAGE,
				  "--listen %s is not a loopback address; /metrics has no authentication, so add --listen-any to serve it beyond this host",
				  addr);
	return 0;
}

int http_check_addr(const char *addr, bool any_addr, struct gl_err *err)
{
	struct sockaddr_storage ss;

	return check_addr(addr, any_addr, &ss, err);
}

struct http_server *http_start(const char *addr, bool any_addr, struct prom_pub *pub,
			       int64_t stale_ns, struct gl_err *err)
{
	struct sockaddr_storage ss;
	struct http_server *h;
	const union MHD_DaemonInfo *info;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;

	if (check_addr(addr, any_addr, &ss, err) || mhd_load(err))
		return NULL;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	h = rec_calloc(1, sizeof(*h));
	h->pub = pub;
	h->stale_ns = stale_ns;
	h->d = mhd.start_daemon(flags, 0, NULL, NULL, on_request, h,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_CONNECTIONS,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)HTTP_MAX_CONNECTIONS / 2,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)HTTP_TIMEOUT_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_CONN_MEMORY,
				MHD_OPTION_END);
	if (!h->d) {
		gl_err_set(err, GL_EIO, "--listen %s: cannot listen there (in use, or not an address of this host)",
			   addr);
		free(h);
		return NULL;
	}
	info = mhd.get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	h->port = info ? info->port : 0;
	return h;
}

unsigned int http_port(const struct http_server *h)
{
	return h->port;
}

void http_stop(struct http_server *h)
{
	if (!h)
		return;
	mhd.stop_daemon(h->d);
	free(h);
}
