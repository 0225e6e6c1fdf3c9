/* SPDX-License-Identifier: MIT */
/*
 * Who a GPU process belongs to, from /proc (docs/record.md "Who"): its
 * user (/proc/PID/status Uid, named from procinfo_users()), its container, pod or
 * systemd unit and its Slurm job (/proc/PID/cgroup).  The /proc root is a
 * parameter so that tests can hand a fake one.
 */
#ifndef RECORD_PROCINFO_H
#define RECORD_PROCINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proc_who_info {
	bool visible;		/* false: no PROC_ROOT/PID here (a host pid seen from a container) */
	char user[32];		/* user name, else "uid1000"; "" unknown */
	char job[24];		/* Slurm job id; "" none */
	char ctr[72];		/* "docker:<12 hex>", "pod:<uid>", "unit:<name>", ...; "" none */
};

/* What "not visible" reads as in the CSV and in the report: the pid is the host's. */
#define PROCINFO_NOT_VISIBLE "host pid, not visible"

/*
 * User names by uid, read once at start (getpwent: /etc/passwd and the
 * NSS sources that list their users), so that naming a process's user
 * allocates nothing while recording; a uid not in it is written uid<N>.
 */
#define PROCINFO_MAX_USERS 4096
struct uid_names {
	size_t n;
	struct {
		uint32_t uid;
		char name[32];
	} u[PROCINFO_MAX_USERS];
};
/* Fill t (all of it, NULL-safe); returns how many users it holds. */
size_t procinfo_users(struct uid_names *t);

/* Are we in a child pid namespace (a container)?  root/self/status NSpid has more than one pid. */
bool procinfo_child_ns(const char *root);
/* Fill *out for pid under root ("/proc", or a test's directory); child_ns
 * from procinfo_child_ns(): a pid not under root is then the host's (not
 * visible), else one that has just exited.  Never fails: what cannot be
 * read is left "". */
void procinfo_read(const char *root, uint32_t pid, bool child_ns, const struct uid_names *users,
		   struct proc_who_info *out);

/* The container (or unit) and Slurm job of one /proc/PID/cgroup text (every line). */
void procinfo_cgroup(const char *text, char *ctr, size_t ctr_cap, char *job, size_t job_cap);

#endif
