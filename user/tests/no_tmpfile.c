// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD for the tests: open() and openat() with O_TMPFILE fail with
 * EOPNOTSUPP, as on a file system without it (vfat, older NFS), so that
 * outputs take their named fallback (unless NO_TMPFILE_ALLOW is not empty: then
 * they are named only to be renamed). With NO_TMPFILE_STALL not empty, rename()
 * waits for a signal first: the output is then on disk under its
 * temporary name, for as long as a test needs.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Set and not empty. */
static int set(const char *name)
{
	const char *v = getenv(name);

	return v && *v;
}

static int refused(int flags)
{
	if ((flags & O_TMPFILE) != O_TMPFILE || set("NO_TMPFILE_ALLOW"))
		return 0;
	errno = EOPNOTSUPP;
	return 1;
}

static mode_t mode_of(int flags, va_list ap)
{
	return flags & O_CREAT || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

int open(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	if (refused(flags))
		return -1;
	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	return real(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	static int (*real)(const char *, int, ...);
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	if (refused(flags))
		return -1;
	if (!real)
		real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
	return real(path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	static int (*real)(int, const char *, int, ...);
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	if (refused(flags))
		return -1;
	if (!real)
		real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
	return real(dirfd, path, flags, mode);
}

int rename(const char *from, const char *to)
{
	static int (*real)(const char *, const char *);

	if (set("NO_TMPFILE_STALL"))
		pause();
	if (!real)
		real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
	return real(from, to);
}
