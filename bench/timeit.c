/* SPDX-License-Identifier: MIT */
/* timeit: runs a command and prints its wall seconds, CPU seconds and peak RSS (bench helper). */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * Usage: timeit RESULT_FILE CMD [ARGS...]
 * Appends "wall_s cpu_s maxrss_kib exit_status" to RESULT_FILE, so the
 * command keeps its own stdout and stderr.  wait4() gives the peak RSS of
 * exactly this child, which /usr/bin/time would too, but that is not
 * installed everywhere.
 */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	double t0, wall_s, cpu_s;
	int status, code;
	pid_t pid;
	FILE *f;

	if (argc < 3) {
		fputs("usage: timeit RESULT_FILE CMD [ARGS...]\n", stderr);
		return 2;
	}
	t0 = now_s();
	pid = fork();
	if (pid < 0) {
		perror("timeit: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "timeit: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("timeit: wait4");
			return 1;
		}
	}
	wall_s = now_s() - t0;
	cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	f = fopen(argv[1], "a");
	if (!f) {
		fprintf(stderr, "timeit: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	fprintf(f, "%.4f %.4f %ld %d\n", wall_s, cpu_s, ru.ru_maxrss, code);
	return fclose(f) ? 1 : code;
}
