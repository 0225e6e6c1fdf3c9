/* SPDX-License-Identifier: MIT */
/* libcurl by dlopen (curl_dl.h). */
#define CURL_DL_IMPL 1
#include "formats/curl_dl.h"

#include "util/dlsyms.h"

struct curl_dl curl_dl;

static const struct dl_sym syms[] = {
	{ "curl_global_init", (void **)&curl_dl.global_init },
	{ "curl_easy_init", (void **)&curl_dl.easy_init },
	{ "curl_easy_setopt", (void **)&curl_dl.easy_setopt },
	{ "curl_easy_getinfo", (void **)&curl_dl.easy_getinfo },
	{ "curl_easy_perform", (void **)&curl_dl.easy_perform },
	{ "curl_easy_reset", (void **)&curl_dl.easy_reset },
	{ "curl_easy_cleanup", (void **)&curl_dl.easy_cleanup },
	{ "curl_easy_strerror", (void **)&curl_dl.easy_strerror },
	{ "curl_easy_escape", (void **)&curl_dl.easy_escape },
	{ "curl_free", (void **)&curl_dl.free_ },
	{ "curl_slist_append", (void **)&curl_dl.slist_append },
	{ "curl_slist_free_all", (void **)&curl_dl.slist_free_all },
	{ "curl_multi_init", (void **)&curl_dl.multi_init },
	{ "curl_multi_add_handle", (void **)&curl_dl.multi_add_handle },
	{ "curl_multi_remove_handle", (void **)&curl_dl.multi_remove_handle },
	{ "curl_multi_perform", (void **)&curl_dl.multi_perform },
	{ "curl_multi_poll", (void **)&curl_dl.multi_poll },
	{ "curl_multi_info_read", (void **)&curl_dl.multi_info_read },
	{ "curl_multi_cleanup", (void **)&curl_dl.multi_cleanup },
};

int curl_dl_load(struct gl_err *err)
{
	const char *why;
	int rc;

	if (curl_dl.global_init)
		return 0;
	rc = dl_load_syms(CURL_DL_LIB, syms, sizeof(syms) / sizeof(syms[0]), &why);
	if (rc == -1)
		return gl_err_set(err, GL_EIO, "--prometheus, --alertmanager and --webhook need %s (Debian package libcurl4): %s",
				  CURL_DL_LIB, why);
	if (rc)
		return gl_err_set(err, GL_EIO, "%s has no %s (libcurl 7.66 or later is needed)",
				  CURL_DL_LIB, why);
	return 0;	/* loaded for the life of the process */
}
