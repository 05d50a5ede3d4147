// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, inside the VM: how long `secmap dump --json` takes to report
 * every loaded module's section addresses, against the sysfs walk perf,
 * elfutils and drgn do (/proc/modules, then every file of
 * /sys/module/NAME/sections). Everything is measured in the same boot,
 * with the same modules loaded; each figure is the median of RUNS, the
 * contenders taking turns.
 *
 *   bench              say what is measured
 *   bench LABEL RUNS   measure; one "bench LABEL ..." line per contender
 *
 * It prints figures and ratios (sysfs walk time / contender time: above
 * 1, faster than the walk); it asserts nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "secmap.h"

#define SECMAP_BIN "/bin/secmap"		/* the static build (make static) */
#define SECMAP_DYNAMIC_BIN "/bin/secmap-dynamic"	/* as make install puts it */
#define NOOP_BIN "/bench/bench_noop"

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

/*
 * The baseline: /proc/modules for the names, then each file of
 * /sys/module/NAME/sections, whose text ("0xffffffffc0a01000\n") is
 * parsed. Tools differ only in how they read one file: elfutils' libdwfl
 * fopen()s and fscanf()s it; a bare open()/read()/close() is cheaper (no
 * FILE, no stdio buffer), and is what this walk does, so that the
 * baseline is not slowed by stdio. Returns sections read, or -errno.
 */
static long sysfs_walk(void)
{
	char path[1024], buf[64], *line = NULL, *end;
	unsigned long long sum = 0;
	long sections = 0;
	size_t cap = 0;
	FILE *mods = fopen("/proc/modules", "re");

	if (!mods)
		return -errno;
	/* getline: a line lists every user of the module, and can be long. */
	while (getline(&line, &cap, mods) > 0) {
		struct dirent *de;
		DIR *dir;

		line[strcspn(line, " \n")] = '\0';
		snprintf(path, sizeof(path), "/sys/module/%s/sections", line);
		dir = opendir(path);
		if (!dir)
			continue;
		while ((de = readdir(dir))) {
			ssize_t n;
			int fd;

			if (de->d_name[0] == '.' &&
			    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
				continue;
			snprintf(path, sizeof(path), "/sys/module/%s/sections/%s", line,
				 de->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n <= 0)
				continue;
			buf[n] = '\0';
			sum += strtoull(buf, &end, 16);
			if (end != buf)
				sections++;
		}
		closedir(dir);
	}
	free(line);
	fclose(mods);
	/* Addresses all 0: kptr_restrict hides them, nothing was learnt. */
	return sum || !sections ? sections : -EPERM;
}

/* libsecmap in-process: open, dump, count, free. Sections seen, or -errno. */
static long lib_dump(void)
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

/* @path run to its end, output to /dev/null. 0 or -errno. */
static long run(const char *path, char *const argv[])
{
	posix_spawn_file_actions_t fa;
	int status, err;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	err = posix_spawn(&pid, path, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err)
		return -err;
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

/* The CLI end to end, as each build: what a user waits for. */
static char *const dump_argv[] = { "secmap", "dump", "--json", NULL };
static char *const dump_no_cache_argv[] = { "secmap", "dump", "--json", "--no-cache", NULL };
static char *const dump_no_ko_argv[] = { "secmap", "dump", "--json", "--no-ko", NULL };
static char *const version_argv[] = { "secmap", "--version", NULL };

static long cli_dump(void)
{
	return run(SECMAP_BIN, dump_argv);
}

static long cli_dump_no_cache(void)
{
	return run(SECMAP_BIN, dump_no_cache_argv);
}

static long cli_dump_no_ko(void)
{
	return run(SECMAP_BIN, dump_no_ko_argv);
}

static long cli_version(void)
{
	return run(SECMAP_BIN, version_argv);
}

static long dynamic_dump(void)
{
	return run(SECMAP_DYNAMIC_BIN, dump_argv);
}

static long dynamic_dump_no_ko(void)
{
	return run(SECMAP_DYNAMIC_BIN, dump_no_ko_argv);
}

static long dynamic_version(void)
{
	return run(SECMAP_DYNAMIC_BIN, version_argv);
}

static long noop_exec(void)
{
	static char *const argv[] = { "bench_noop", NULL };

	return run(NOOP_BIN, argv);
}

/* User and system CPU milliseconds of this process, or of its children. */
static void cpu_ms(int who, double *user, double *sys)
{
	struct rusage ru;

	getrusage(who, &ru);
	*user = ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3;
	*sys = ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3;
}

struct contender {
	const char *what;
	long (*fn)(void);
	int rusage_who;		/* RUSAGE_SELF or RUSAGE_CHILDREN */
	double ms;		/* median */
	double user, sys;	/* CPU per run, mean */
	long result;		/* of the last run */
};

/*
 * Median wall time of @runs calls of each of @n contenders, mean CPU time
 * per call. The calls take turns, round after round: a host whose load
 * drifts over seconds (a TCG guest shares its core) then weighs on every
 * contender alike, rather than on whichever ran while it was busy.
 */
static void measure(struct contender *c, size_t n, int runs)
{
	double *t = calloc((size_t)runs * n, sizeof(*t)), u0, s0, u1, s1;
	size_t i;
	int r;

	if (!t) {
		for (i = 0; i < n; i++)
			c[i].result = -ENOMEM;
		return;
	}
	/* Warm caches: the first sysfs walk also builds dentries. */
	for (i = 0; i < n; i++)
		c[i].fn();
	for (r = 0; r < runs; r++) {
		for (i = 0; i < n; i++) {
			double start;

			if (c[i].result < 0)
				continue;
			cpu_ms(c[i].rusage_who, &u0, &s0);
			start = now_ms();
			c[i].result = c[i].fn();
			t[i * runs + r] = now_ms() - start;
			cpu_ms(c[i].rusage_who, &u1, &s1);
			c[i].user += (u1 - u0) / runs;
			c[i].sys += (s1 - s0) / runs;
		}
	}
	for (i = 0; i < n; i++) {
		qsort(t + i * runs, runs, sizeof(*t), cmp_double);
		c[i].ms = t[i * runs + runs / 2];
	}
	free(t);
}

static void about(void)
{
	printf("bench: median wall time of each contender, all taking turns; \"Nx\" is sysfs walk time / its time\n"
	       "bench:   sysfs walk: /proc/modules, then open+read+parse every /sys/module/*/sections/* file\n"
	       "bench:   secmap: the static build (make static), as the VMs run it; \"dynamic\":\n"
	       "bench:     the same CLI linked to its shared libraries, as make install puts it\n"
	       "bench:   secmap dump --json: the CLI as users run it, output to /dev/null; it also\n"
	       "bench:     looks for each module's .ko and reads those it finds: the real (xz)\n"
	       "bench:     modules loaded at boot, and the clones (8 KiB each, in the release's\n"
	       "bench:     tree and modules.dep, build-ids of their own). Warm cache: what it read\n"
	       "bench:     of each .ko is kept by build-id (the warm-up run fills it), so no .ko\n"
	       "bench:     is searched for, read or decompressed again\n"
	       "bench:   secmap dump --json --no-cache: the same reading every .ko again\n"
	       "bench:   secmap dump --json --no-ko: the same without the .ko search, which is what\n"
	       "bench:     the sysfs walk collects (it reads no .ko either): the like-for-like figure\n"
	       "bench:   libsecmap dump: open, dump, free, in-process: the library's share\n"
	       "bench:   secmap --version: process start-up (exec, dynamic linking), the floor under\n"
	       "bench:     any CLI figure; its ratio is the most any `secmap` command could reach\n"
	       "bench:   static no-op exec: a static program that returns at once, the floor under\n"
	       "bench:     any process on this machine (under TCG, mostly translating code)\n");
}

int main(int argc, char **argv)
{
	struct contender all[] = {
		{ .what = "sysfs walk", .fn = sysfs_walk, .rusage_who = RUSAGE_SELF },
		{ .what = "secmap dump --json (warm cache)", .fn = cli_dump,
		  .rusage_who = RUSAGE_CHILDREN },
		{ .what = "secmap dump --json --no-cache", .fn = cli_dump_no_cache,
		  .rusage_who = RUSAGE_CHILDREN },
		{ .what = "secmap dump --json --no-ko", .fn = cli_dump_no_ko,
		  .rusage_who = RUSAGE_CHILDREN },
		{ .what = "libsecmap dump (in-process)", .fn = lib_dump, .rusage_who = RUSAGE_SELF },
		{ .what = "secmap --version", .fn = cli_version, .rusage_who = RUSAGE_CHILDREN },
		{ .what = "dynamic: dump --json (warm cache)", .fn = dynamic_dump,
		  .rusage_who = RUSAGE_CHILDREN },
		{ .what = "dynamic: dump --json --no-ko", .fn = dynamic_dump_no_ko,
		  .rusage_who = RUSAGE_CHILDREN },
		{ .what = "dynamic: secmap --version", .fn = dynamic_version,
		  .rusage_who = RUSAGE_CHILDREN },
		{ .what = "static no-op exec", .fn = noop_exec, .rusage_who = RUSAGE_CHILDREN },
	};
	const struct contender *sysfs = &all[0];
	const size_t n = sizeof(all) / sizeof(all[0]);
	const char *label;
	int runs, failed = 0;
	size_t i;

	if (argc < 3) {
		about();
		return 0;
	}
	label = argv[1];
	runs = atoi(argv[2]);
	/* The VM's /init has no $HOME: give the .ko cache a place of its own. */
	setenv("XDG_CACHE_HOME", "/tmp/bench-cache", 1);
	if (runs < 1)
		runs = 1;

	measure(all, n, runs);

	if (sysfs->result < 0) {
		printf("bench %-10s %-34s failed: %s\n", label, sysfs->what, strerror(-sysfs->result));
		return 1;
	}
	printf("bench %-10s %-34s %9.2f ms           (user %7.2f, kernel %7.2f ms)  %ld sections\n",
	       label, sysfs->what, sysfs->ms, sysfs->user, sysfs->sys, sysfs->result);
	for (i = 1; i < n; i++) {
		const struct contender *c = &all[i];

		if (c->result < 0) {
			printf("bench %-10s %-34s failed: %s\n", label, c->what, strerror(-c->result));
			failed = 1;
			continue;
		}
		printf("bench %-10s %-34s %9.2f ms %7.1fx  (user %7.2f, kernel %7.2f ms)", label,
		       c->what, c->ms, sysfs->ms / c->ms, c->user, c->sys);
		if (c->fn == lib_dump)
			printf("  %ld sections", c->result);
		putchar('\n');
	}
	return failed;
}
