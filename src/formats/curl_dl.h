/* SPDX-License-Identifier: MIT */
/*
 * libcurl loaded when a pull starts, not when the program starts.
 *
 * Linked in, libcurl and the thirty libraries it brings (TLS, Kerberos,
 * LDAP, SSH, IDN ...) cost every command about 4 ms of start-up for
 * relocations and initialisers, five times what the rest of gputally
 * costs; only `report --prometheus` and the delivery of `alert`
 * (--alertmanager, --webhook) use it.  So prom_remote.c and alert_send.c include
 * this header instead of <curl/curl.h>: the declarations come from curl's
 * own header, and each function those files call is a pointer that
 * curl_dl_load() fills from libcurl.so.4 (the macros below keep the call
 * sites as libcurl's documentation writes them).
 */
#ifndef FORMATS_CURL_DL_H
#define FORMATS_CURL_DL_H

#define CURL_DISABLE_TYPECHECK 1	/* curl_easy_setopt must not be curl's checking macro */
#include <curl/curl.h>

#include "util/err.h"

#define CURL_DL_LIB "libcurl.so.4"

struct curl_dl {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *h, CURLoption opt, ...);
	CURLcode (*easy_getinfo)(CURL *h, CURLINFO info, ...);
	CURLcode (*easy_perform)(CURL *h);
	void (*easy_reset)(CURL *h);
	void (*easy_cleanup)(CURL *h);
	const char *(*easy_strerror)(CURLcode c);
	char *(*easy_escape)(CURL *h, const char *s, int n);
	void (*free_)(void *p);
	struct curl_slist *(*slist_append)(struct curl_slist *l, const char *s);
	void (*slist_free_all)(struct curl_slist *l);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_add_handle)(CURLM *m, CURL *h);
	CURLMcode (*multi_remove_handle)(CURLM *m, CURL *h);
	CURLMcode (*multi_perform)(CURLM *m, int *running);
	CURLMcode (*multi_poll)(CURLM *m, struct curl_waitfd *fds, unsigned n, int ms, int *numfds);
	CURLMsg *(*multi_info_read)(CURLM *m, int *left);
	CURLMcode (*multi_cleanup)(CURLM *m);
};
extern struct curl_dl curl_dl;

/* Load libcurl once (main thread, before any other call); 0 or GL_EIO with err. */
int curl_dl_load(struct gl_err *err);

#ifndef CURL_DL_IMPL
#undef curl_easy_setopt	/* curl.h may define these two as macros of themselves */
#undef curl_easy_getinfo
#define curl_global_init curl_dl.global_init
#define curl_easy_init curl_dl.easy_init
#define curl_easy_setopt curl_dl.easy_setopt
#define curl_easy_getinfo curl_dl.easy_getinfo
#define curl_easy_perform curl_dl.easy_perform
#define curl_easy_reset curl_dl.easy_reset
#define curl_easy_cleanup curl_dl.easy_cleanup
#define curl_easy_strerror curl_dl.easy_strerror
#define curl_easy_escape curl_dl.easy_escape
#define curl_free curl_dl.free_
#define curl_slist_append curl_dl.slist_append
#define curl_slist_free_all curl_dl.slist_free_all
#define curl_multi_init curl_dl.multi_init
#define curl_multi_add_handle curl_dl.multi_add_handle
#define curl_multi_remove_handle curl_dl.multi_remove_handle
#define curl_multi_perform curl_dl.multi_perform
#define curl_multi_poll curl_dl.multi_poll
#define curl_multi_info_read curl_dl.multi_info_read
#define curl_multi_cleanup curl_dl.multi_cleanup
#endif

#endif
