/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzz targets of the perf.data rewrite, of inject and of the
 * sample walk share: the fixture make fuzz prepares (SECMAP_FUZZ_REWRITE,
 * a directory with rec.data, the recording of fake modules, and kos/,
 * their files), a scratch directory gone at exit, and files read whole.
 * Included by one target each.
 */
#ifndef SECMAP_FUZZ_FIXTURE_H
#define SECMAP_FUZZ_FIXTURE_H

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static char fuzz_scratch[256];

/* The fixture's kos/ into @kos and rec.data into @rec; exit 2 without one. */
static inline void fuzz_fixture(char *kos, size_t kos_size, char *rec, size_t rec_size)
{
	const char *fix = getenv("SECMAP_FUZZ_REWRITE");

	if (!fix) {
		fprintf(stderr, "SECMAP_FUZZ_REWRITE: a directory with rec.data and kos/\n");
		exit(2);
	}
	snprintf(kos, kos_size, "%s/kos", fix);
	snprintf(rec, rec_size, "%s/rec.data", fix);
}

static inline int fuzz_rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static inline void fuzz_remove_scratch(void)
{
	nftw(fuzz_scratch, fuzz_rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

/* A new empty directory, NAME.XXXXXX in $TMPDIR, removed with all it holds at exit. */
static inline const char *fuzz_scratch_dir(const char *name)
{
	snprintf(fuzz_scratch, sizeof(fuzz_scratch), "%s/%s.XXXXXX",
		 getenv("TMPDIR") ?: "/tmp", name);
	if (!mkdtemp(fuzz_scratch))
		abort();
	atexit(fuzz_remove_scratch);
	return fuzz_scratch;
}

/* The whole of @path, malloc()ed; aborts if it cannot be read. */
static inline uint8_t *fuzz_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc((size_t)n + 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n)
		abort();
	fclose(f);
	*len = (size_t)n;
	return buf;
}

#endif /* SECMAP_FUZZ_FIXTURE_H */
