// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, inside the VM: how long it takes to learn every loaded
 * module's section addresses through secmap's netlink dump, against the
 * sysfs walk perf, elfutils and drgn do (/proc/modules, then every file of
 * /sys/module/NAME/sections). Both measured in the same boot, same load.
 *
 *   bench LABEL RUNS
 */
#include <dirent.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "secmap.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Reads /proc/modules and every section file; returns sections read. */
static long sysfs_walk(void)
{
	char line[512], path[1024], buf[64];
	long sections = 0;
	FILE *mods = fopen("/proc/modules", "r");

	if (!mods)
		return -errno;
	while (fgets(line, sizeof(line), mods)) {
		struct dirent *de;
		DIR *dir;

		line[strcspn(line, " ")] = '\0';
		snprintf(path, sizeof(path), "/sys/module/%s/sections", line);
		dir = opendir(path);
		if (!dir)
			continue;
		while ((de = readdir(dir))) {
			int fd;

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			snprintf(path, sizeof(path), "/sys/module/%s/sections/%s", line, de->d_name);
			fd = open(path, O_RDONLY);
			if (fd < 0)
				continue;
			if (read(fd, buf, sizeof(buf)) > 0)
				sections++;
			close(fd);
		}
		closedir(dir);
	}
	fclose(mods);
	return sections;
}

static long netlink_dump(void)
{
	struct secmap_snapshot *snap;
	struct secmap_client *client;
	long sections = 0;
	size_t i;
	int err;

	err = secmap_client_open(&client);
	if (err)
		return err;
	err = secmap_client_dump(client, &snap);
	secmap_client_close(client);
	if (err)
		return err;
	for (i = 0; i < secmap_snapshot_module_count(snap); i++)
		sections += secmap_module_section_count(secmap_snapshot_module(snap, i));
	secmap_snapshot_free(snap);
	return sections;
}

/* The CLI end to end, output to /dev/null: what a user waits for. */
static long cli_dump(void)
{
	static char *const argv[] = { "secmap", "dump", "--json", NULL };
	posix_spawn_file_actions_t fa;
	int status;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (posix_spawn(&pid, "/bin/secmap", &fa, NULL, argv, NULL))
		return -errno;
	posix_spawn_file_actions_destroy(&fa);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return -EIO;
	return 0;
}

/* User and system CPU milliseconds spent by this process so far. */
static void cpu_ms(double *user, double *sys)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	*user = ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3;
	*sys = ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
}

/* Median wall time of @runs calls of @fn, in milliseconds. */
static double median_ms(long (*fn)(void), int runs, long *result)
{
	double *t = calloc(runs, sizeof(*t)), median;
	int i;

	for (i = 0; i < runs; i++) {
		double start = now_ms();

		*result = fn();
		t[i] = now_ms() - start;
	}
	qsort(t, runs, sizeof(*t), cmp_double);
	median = t[runs / 2];
	free(t);
	return median;
}

int main(int argc, char **argv)
{
	const char *label = argc > 1 ? argv[1] : "";
	int runs = argc > 2 ? atoi(argv[2]) : 5;
	long nl_sections, sysfs_sections, cli_ret;
	double nl, sysfs, cli;

	if (runs < 1)
		runs = 1;
	/* Warm both paths once: the first sysfs walk also builds dentries. */
	sysfs_walk();
	netlink_dump();
	sysfs = median_ms(sysfs_walk, runs, &sysfs_sections);
	{
		double u0, s0, u1, s1;

		cpu_ms(&u0, &s0);
		nl = median_ms(netlink_dump, runs, &nl_sections);
		cpu_ms(&u1, &s1);
		printf("# %s: libsecmap dump per run: user %.2f ms, kernel %.2f ms\n", label,
		       (u1 - u0) / runs, (s1 - s0) / runs);
	}
	cli = median_ms(cli_dump, runs, &cli_ret);
	if (nl_sections < 0 || sysfs_sections < 0) {
		fprintf(stderr, "bench: %s failed: %s\n", nl_sections < 0 ? "netlink" : "sysfs",
			strerror(-(nl_sections < 0 ? nl_sections : sysfs_sections)));
		return 1;
	}
	printf("bench %-12s sysfs walk %9.2f ms (%ld sections) | libsecmap dump %8.2f ms (%ld sections) ratio %6.1fx | secmap dump --json %8.2f ms%s\n",
	       label, sysfs, sysfs_sections, nl, nl_sections, sysfs / nl, cli,
	       cli_ret ? " (failed)" : "");
	return 0;
}
