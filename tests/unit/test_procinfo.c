/* SPDX-License-Identifier: MIT */
/* Unit tests for record/procinfo.c: who a GPU process belongs to, read from a fake /proc. */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/procinfo.h"

#define HEX64 "4f2c1d9e8b7a6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d"

static char root[256];
static struct uid_names users;

static void put(const char *rel, const char *text)
{
	char path[512], dir[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	mkdir(dir, 0755);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void proc(int pid, unsigned uid, const char *cgroup)
{
	char rel[64], status[128];

	snprintf(status, sizeof(status), "Name:\tpython\nState:\tS (sleeping)\nUid:\t%u\t%u\t%u\t%u\n", uid, uid, uid, uid);
	snprintf(rel, sizeof(rel), "%d/status", pid);
	put(rel, status);
	snprintf(rel, sizeof(rel), "%d/cgroup", pid);
	put(rel, cgroup);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/gputally-procinfo-%d", (int)getpid());
	procinfo_users(&users);
	mkdir(root, 0755);
	put("self/status", "Name:\tgputally\nNSpid:\t4711\n");
	/* Kubernetes with the systemd driver: the pod's uid with underscores */
	proc(100, 0, "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod0c2f4d58_63a5_4c1e_9b1a_6a7e6f1f2d11.slice/cri-containerd-" HEX64 ".scope\n");
	/* Slurm, cgroup v1 */
	proc(101, 54321, "12:devices:/slurm/uid_54321/job_4242/step_0\n11:memory:/slurm/uid_54321/job_4242/step_0/task_0\n1:name=systemd:/system.slice/slurmd.service\n");
	/* Docker, cgroup v2 */
	proc(102, 0, "0::/system.slice/docker-" HEX64 ".scope\n");
	/* a systemd service */
	proc(103, 0, "0::/system.slice/ollama.service\n");
	/* Slurm, cgroup v2 */
	proc(104, 0, "0::/system.slice/slurmstepd.scope/job_777/step_batch/user/task_0\n");
	/* Kubernetes with cgroupfs, v1 */
	proc(105, 0, "4:memory:/kubepods/besteffort/pod0c2f4d58-63a5-4c1e-9b1a-6a7e6f1f2d11/" HEX64 "\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_cgroups(void **state)
{
	struct proc_who_info w;

	(void)state;
	assert_false(procinfo_child_ns(root));
	procinfo_read(root, 100, false, &users, &w);
	assert_true(w.visible);
	assert_string_equal(w.user, "root");
	assert_string_equal(w.ctr, "pod:0c2f4d58-63a5-4c1e-9b1a-6a7e6f1f2d11");
	assert_string_equal(w.job, "");
	procinfo_read(root, 101, false, &users, &w);
	assert_string_equal(w.user, "uid54321");	/* no such user here: the number */
	assert_string_equal(w.job, "4242");
	assert_string_equal(w.ctr, "");
	procinfo_read(root, 102, false, &users, &w);
	assert_string_equal(w.ctr, "docker:4f2c1d9e8b7a");
	procinfo_read(root, 103, false, &users, &w);
	assert_string_equal(w.ctr, "unit:ollama.service");
	procinfo_read(root, 104, false, &users, &w);
	assert_string_equal(w.job, "777");
	assert_string_equal(w.ctr, "");
	procinfo_read(root, 105, false, &users, &w);
	assert_string_equal(w.ctr, "pod:0c2f4d58-63a5-4c1e-9b1a-6a7e6f1f2d11");
}

/* A pid not under our /proc: from a container (a child pid namespace) it is
 * the host's, "not visible"; on the host it has exited (nothing known). */
static void test_not_visible(void **state)
{
	struct proc_who_info w;

	(void)state;
	procinfo_read(root, 999, false, &users, &w);
	assert_true(w.visible);
	assert_string_equal(w.user, "");
	put("self/status", "Name:\tgputally\nNSpid:\t4711\t12\n");
	assert_true(procinfo_child_ns(root));
	procinfo_read(root, 999, true, &users, &w);
	assert_false(w.visible);
	procinfo_read(root, 100, true, &users, &w);
	assert_true(w.visible);
	put("self/status", "Name:\tgputally\nNSpid:\t4711\n");
}

/* Users are named from the table read at start: root is uid 0; no NSS call per process. */
static void test_users(void **state)
{
	struct uid_names t;
	bool root_seen = false;

	(void)state;
	assert_true(procinfo_users(&t) >= 1);
	for (size_t i = 0; i < t.n; i++)
		root_seen |= t.u[i].uid == 0 && !strcmp(t.u[i].name, "root");
	assert_true(root_seen);
	assert_int_equal(procinfo_users(NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroups),
		cmocka_unit_test(test_not_visible),
		cmocka_unit_test(test_users),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
