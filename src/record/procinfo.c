/* SPDX-License-Identifier: MIT */
/* Who a GPU process belongs to: /proc/PID/status and /proc/PID/cgroup. */
#include "record/procinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Read a small file whole (NUL-terminated, cut at cap - 1); -1 when it cannot be opened. */
static ssize_t slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;

	if (fd < 0)
		return -1;
	while (n + 1 < cap) {
		ssize_t k = read(fd, buf + n, cap - 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	close(fd);
	buf[n] = '\0';
	return (ssize_t)n;
}

static bool is_hex(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return false;
	return n > 0;
}

/* A 64-hex container id inside component c (after prefix), cut to 12 as docker ps shows it. */
static bool ctr_id(const char *c, size_t n, const char *prefix, const char *kind, char *out, size_t cap)
{
	size_t pl = strlen(prefix);
	const char *id;

	if (n < pl + 64 || strncmp(c, prefix, pl))
		return false;
	id = c + pl;
	if (!is_hex(id, 64))
		return false;
	snprintf(out, cap, "%s:%.12s", kind, id);
	return true;
}

/* One path's component: what it says of the pod, container, unit or job. */
static void component(const char *c, size_t n, char *pod, size_t pod_cap, char *ctr, size_t ctr_cap, char *unit,
		      size_t unit_cap, char *job, size_t job_cap)
{
	const char *p;

	/* Slurm: /slurm/uid_N/job_M/step_S (v1), .../job_M/step_S/... (v2) */
	if (n > 4 && !strncmp(c, "job_", 4) && strspn(c + 4, "0123456789") == n - 4) {
		snprintf(job, job_cap, "%.*s", (int)(n - 4), c + 4);
		return;
	}
	/* Kubernetes: kubepods/burstable/pod<uid> (cgroupfs) or
	 * kubepods-burstable-pod<uid_with_underscores>.slice (systemd) */
	for (p = memmem(c, n, "pod", 3); p; p = memmem(p + 3, (size_t)(c + n - p - 3), "pod", 3)) {
		char uid[40];
		size_t k;
		if (!(p == c || p[-1] == '-') || (size_t)(c + n - p) < 3 + 36)
			continue;	/* "kubepods" itself, or too short */
		memcpy(uid, p + 3, 36);
		uid[36] = '\0';
		for (k = 0; k < 36; k++)
			if (uid[k] == '_')
				uid[k] = '-';
		if (strspn(uid, "0123456789abcdef-") == 36) {
			snprintf(pod, pod_cap, "pod:%s", uid);
			return;
		}
	}
	/* containers: /docker/<id> (v1), docker-<id>.scope, cri-containerd-<id>.scope,
	 * crio-<id>.scope, libpod-<id>.scope (podman) */
	if (ctr_id(c, n, "docker-", "docker", ctr, ctr_cap) || ctr_id(c, n, "cri-containerd-", "containerd", ctr, ctr_cap) ||
	    ctr_id(c, n, "crio-", "crio", ctr, ctr_cap) || ctr_id(c, n, "libpod-", "podman", ctr, ctr_cap) ||
	    ctr_id(c, n, "", "container", ctr, ctr_cap))
		return;
	/* systemd: the deepest service or scope */
	if ((n > 8 && !memcmp(c + n - 8, ".service", 8)) || (n > 6 && !memcmp(c + n - 6, ".scope", 6)))
		snprintf(unit, unit_cap, "unit:%.*s", (int)n, c);
}

void procinfo_cgroup(const char *text, char *ctr, size_t ctr_cap, char *job, size_t job_cap)
{
	char pod[48] = "", c[80] = "", unit[80] = "";
	const char *line = text;

	job[0] = ctr[0] = '\0';
	while (line && *line) {
		const char *nl = strchr(line, '\n'), *end = nl ? nl : line + strlen(line);
		/* hierarchy-ID:controllers:path */
		const char *a = memchr(line, ':', (size_t)(end - line));
		const char *b = a ? memchr(a + 1, ':', (size_t)(end - a - 1)) : NULL;
		if (b) {
			const char *p = b + 1;
			while (p < end) {
				const char *s = memchr(p, '/', (size_t)(end - p)), *ce = s ? s : end;
				if (ce > p)
					component(p, (size_t)(ce - p), pod, sizeof(pod), c, sizeof(c), unit,
						  sizeof(unit), job, job_cap);
				p = s ? s + 1 : end;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	/* a pod names the container's owner best; a unit only when nothing else does */
	snprintf(ctr, ctr_cap, "%s", pod[0] ? pod : c[0] ? c : job[0] ? "" : unit);
}

/* The real uid of a /proc/PID/status text, -1 if none. */
static long status_uid(const char *text)
{
	const char *u = strstr(text, "\nUid:");
	char *end;
	long uid;

	if (!u)
		return -1;
	uid = strtol(u + 5, &end, 10);
	return end == u + 5 || uid < 0 ? -1 : uid;
}

bool procinfo_child_ns(const char *root)
{
	char path[256], buf[4096];
	const char *ns, *end;
	int n = 0;

	snprintf(path, sizeof(path), "%s/self/status", root);
	if (slurp(path, buf, sizeof(buf)) < 0 || !(ns = strstr(buf, "\nNSpid:")))
		return false;
	ns += 8;
	end = strchr(ns, '\n');
	if (!end)
		end = ns + strlen(ns);
	/* one pid per namespace level: more than one, we are not in the host's */
	for (const char *p = ns; p < end; p++)
		if ((*p >= '0' && *p <= '9') && (p == ns || p[-1] == '\t' || p[-1] == ' '))
			n++;
	return n > 1;
}

size_t procinfo_users(struct uid_names *t)
{
	struct passwd pw, *res;
	char buf[1024];

	if (!t)
		return 0;
	t->n = 0;
	setpwent();
	while (t->n < PROCINFO_MAX_USERS && getpwent_r(&pw, buf, sizeof(buf), &res) == 0 && res) {
		bool seen = false;
		for (size_t i = 0; i < t->n && !seen; i++)
			seen = t->u[i].uid == (uint32_t)pw.pw_uid;	/* the first source wins, as getpwuid */
		if (seen || !pw.pw_name[0])
			continue;
		t->u[t->n].uid = (uint32_t)pw.pw_uid;
		snprintf(t->u[t->n].name, sizeof(t->u[t->n].name), "%s", pw.pw_name);
		t->n++;
	}
	endpwent();
	return t->n;
}

void procinfo_read(const char *root, uint32_t pid, bool child_ns, const struct uid_names *users,
		   struct proc_who_info *out)
{
	char path[256], buf[8192];
	long uid;

	memset(out, 0, sizeof(*out));
	out->visible = true;
	snprintf(path, sizeof(path), "%s/%u/status", root, pid);
	if (slurp(path, buf, sizeof(buf)) < 0) {
		/* NVML names host pids: from a container's pid namespace
		 * they are not ours to read; else it has just exited */
		out->visible = !child_ns;
		return;
	}
	uid = status_uid(buf);
	if (uid >= 0) {
		/* from the table read at start: no NSS call (it may allocate) while recording */
		for (size_t i = 0; users && i < users->n && !out->user[0]; i++)
			if (users->u[i].uid == (uint32_t)uid)
				snprintf(out->user, sizeof(out->user), "%s", users->u[i].name);
		if (!out->user[0])
			snprintf(out->user, sizeof(out->user), "uid%ld", uid);
	}
	snprintf(path, sizeof(path), "%s/%u/cgroup", root, pid);
	if (slurp(path, buf, sizeof(buf)) >= 0)
		procinfo_cgroup(buf, out->ctr, sizeof(out->ctr), out->job, sizeof(out->job));
}
