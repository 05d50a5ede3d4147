// SPDX-License-Identifier: GPL-2.0
/*
 * libsecmap: opening the files it reads (sysfs, /proc, modules.dep, .ko
 * files) so that what lies at a path cannot hang or mislead the reader: a
 * FIFO would block open() or read() forever, a device could never end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
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

int libsecmap_open_tmpfile(const char *dir, mode_t mode)
{
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);

	if (fd >= 0)
		return fd;
	/* EISDIR, EINVAL: a kernel or file system that does not know O_TMPFILE. */
	return errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL ? -EOPNOTSUPP : -errno;
}

int libsecmap_scratch_file(const char *dir)
{
	char *tmp;
	int fd;

	if (!dir) {
		/* Anywhere: a memfd, where the kernel has memfd_create. */
		fd = memfd_create("secmap-scratch", MFD_CLOEXEC);
		if (fd >= 0 || errno != ENOSYS)
			return fd < 0 ? -errno : fd;
		dir = getenv("TMPDIR") ?: "/tmp";
	}
	fd = libsecmap_open_tmpfile(dir, 0600);
	if (fd != -EOPNOTSUPP)
		return fd;
	/* A file system without O_TMPFILE: a name, gone at once. */
	if (asprintf(&tmp, "%s/.secmap-scratch-XXXXXX", dir) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd >= 0)
		unlink(tmp);
	else
		fd = -errno;
	free(tmp);
	return fd;
}
