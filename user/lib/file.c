// SPDX-License-Identifier: GPL-2.0
/*
 * libsecmap: opening the files it reads (sysfs, /proc, modules.dep, .ko
 * files) so that what lies at a path cannot hang or mislead the reader: a
 * FIFO would block open() or read() forever, a device could never end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

int libsecmap_open_regular_stat(const char *path, struct stat *st)
{
	int fd, err;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer; no effect on files. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
	}
	return fd;
}

int libsecmap_open_regular(const char *path)
{
	struct stat st;

	return libsecmap_open_regular_stat(path, &st);
}

FILE *libsecmap_fopen_regular(const char *path)
{
	FILE *f;
	int fd = libsecmap_open_regular(path);

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return f;
}
