// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libsecmap: output files that replace their target only when complete.
 * Written unnamed (O_TMPFILE) beside the target, so that a crash or a
 * kill -9 leaves nothing; named and renamed over it at the end. Symlinks
 * are followed (the link stays, its target gets the new file); devices,
 * FIFOs, sockets and directories are never replaced.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/*
 * The temporary files with a name on disk now (a file system without
 * O_TMPFILE; or one being renamed into place), for a signal handler to
 * remove: secmap_output_remove_temporaries(). Slots are claimed and
 * cleared atomically. The remover may run on another thread and read a
 * name after taking it: a name it took is never freed by its owner.
 */
#define TMP_SLOTS	32

static char *tmp_names[TMP_SLOTS];

static void tmp_named(struct libsecmap_out *o)
{
	unsigned int i;

	for (i = 0; i < TMP_SLOTS; i++) {
		char *none = NULL;

		if (__atomic_compare_exchange_n(&tmp_names[i], &none, o->tmp, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			o->tmp_tracked = true;
			return;
		}
	}
	/* More at once than any command makes: that one is not removed on a signal. */
}

/*
 * Take @o->tmp out of the table. If the remover took it first, it may be
 * unlinking it now: @o->tmp is then let go unfreed (the process is on its
 * way out) and NULL.
 */
static void tmp_unnamed(struct libsecmap_out *o)
{
	unsigned int i;

	if (!o->tmp_tracked)
		return;
	o->tmp_tracked = false;
	for (i = 0; i < TMP_SLOTS; i++) {
		char *was = o->tmp;

		if (__atomic_compare_exchange_n(&tmp_names[i], &was, NULL, false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return;
	}
	o->tmp = NULL;
}

SECMAP_EXPORT void secmap_output_remove_temporaries(void)
{
	unsigned int i;

	for (i = 0; i < TMP_SLOTS; i++) {
		char *name = __atomic_exchange_n(&tmp_names[i], NULL, __ATOMIC_SEQ_CST);

		if (name)
			unlink(name);	/* async-signal-safe; the name itself leaks */
	}
}

/* @path's directory: "." without a slash, "/" for "/x". malloc()ed. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	return strndup(path, slash == path ? 1 : (size_t)(slash - path));
}

/*
 * A file still to be made at @path, reached through a symlink: its
 * directory must exist, else the link leads nowhere (-ENOLINK). The
 * directory's real path and @path's name, malloc()ed, or NULL with errno.
 */
static char *new_file_target(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = dir_of(path), *real = NULL, *out = NULL;

	if (dir)
		real = realpath(dir, NULL);
	if (!real && errno == ENOENT)
		errno = ENOLINK;
	if (real && asprintf(&out, "%s/%s", strcmp(real, "/") ? real : "",
			     slash ? slash + 1 : path) < 0)
		out = NULL;
	free(real);
	free(dir);
	return out;
}

/*
 * Where @path leads: its symlinks followed, so that the file they lead to
 * is replaced (or made, if its directory exists) and the links stay.
 * malloc()ed, or NULL with errno; a path that does not exist yet is
 * itself (its directory must exist).
 */
static char *final_target(const char *path)
{
	char *cur = strdup(path), *next, link[PATH_MAX];
	unsigned int hops;
	struct stat st;
	ssize_t n;

	for (hops = 0; cur && hops < 40; hops++) {
		if (lstat(cur, &st) < 0) {
			if (errno != ENOENT)
				goto fail;
			if (!hops)
				return cur;	/* not there yet: made where it is named */
			next = new_file_target(cur);
		} else if (!S_ISLNK(st.st_mode)) {
			next = realpath(cur, NULL);
		} else {
			n = readlink(cur, link, sizeof(link) - 1);
			if (n < 0)
				goto fail;
			link[n] = '\0';
			if (link[0] == '/') {
				next = strdup(link);
			} else {
				char *dir = dir_of(cur);

				if (!dir || asprintf(&next, "%s/%s", dir, link) < 0)
					next = NULL;
				free(dir);
			}
			free(cur);
			cur = next;
			continue;
		}
		free(cur);
		return next;
	}
	if (cur)
		errno = ELOOP;
fail:
	free(cur);
	return NULL;
}

int libsecmap_out_open(struct libsecmap_out *o, const char *path, const struct stat *like)
{
	struct stat st;
	const char *slash;
	mode_t mode = like ? like->st_mode & 0777 : 0644;
	int err;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!*path)
		return -ENOENT;
	o->target = final_target(path);
	if (!o->target)
		return -errno;
	/* Devices, FIFOs, sockets and directories are never replaced. */
	if (stat(o->target, &st) == 0 && !S_ISREG(st.st_mode)) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto fail;
	}
	slash = strrchr(o->target, '/');
	if (slash && !slash[1]) {
		err = -EISDIR;
		goto fail;
	}
	o->dir = dir_of(o->target);
	o->base = slash ? slash + 1 : o->target;
	if (!o->dir) {
		err = -ENOMEM;
		goto fail;
	}
	/* Unnamed until committed: a crash or kill -9 leaves nothing behind. */
	o->fd = libsecmap_open_tmpfile(o->dir, mode);
	if (o->fd < 0) {
		err = o->fd;
		o->fd = -1;
		if (err != -EOPNOTSUPP)
			goto fail;
		/* A file system without O_TMPFILE: a hidden name, removed on failure. */
		if (asprintf(&o->tmp, "%s/.%.200s.secmap-XXXXXX", o->dir, o->base) < 0) {
			o->tmp = NULL;
			err = -ENOMEM;
			goto fail;
		}
		o->fd = mkostemp(o->tmp, O_CLOEXEC);
		if (o->fd < 0) {
			err = -errno;
			free(o->tmp);
			o->tmp = NULL;
			goto fail;
		}
		tmp_named(o);
	}
	err = libsecmap_out_like(o, like);
	if (err)
		goto fail;
	return 0;
fail:
	libsecmap_out_discard(o);
	return err;
}

int libsecmap_out_like(struct libsecmap_out *o, const struct stat *like)
{
	if (like && (like->st_uid != geteuid() || like->st_gid != getegid()) &&
	    fchown(o->fd, like->st_uid, like->st_gid) < 0) {
		/* Not permitted: the file stays ours, as any new one would. */
	}
	return fchmod(o->fd, like ? like->st_mode & 0777 : 0644) < 0 ? -errno : 0;
}

void libsecmap_out_discard(struct libsecmap_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	tmp_unnamed(o);
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->dir);
	free(o->target);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

/* Give the unnamed file a name in its directory: hidden, unique, for rename(). */
static int name_tmpfile(struct libsecmap_out *o)
{
	char proc[64];
	unsigned int i;
	int err = -EEXIST;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->fd);
	for (i = 0; i < 100 && err == -EEXIST; i++) {
		free(o->tmp);
		if (asprintf(&o->tmp, "%s/.%.200s.secmap-%d-%u", o->dir, o->base, (int)getpid(),
			     i) < 0) {
			o->tmp = NULL;
			return -ENOMEM;
		}
		/* Listed before the link, so that a signal just after it finds the name. */
		tmp_named(o);
		/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc does not. */
		if (!linkat(o->fd, "", AT_FDCWD, o->tmp, AT_EMPTY_PATH) ||
		    !linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW))
			return 0;
		err = -errno;
		tmp_unnamed(o);
	}
	free(o->tmp);
	o->tmp = NULL;
	return err;
}

/* The rename is durable only once the directory holding it is synced. */
static void sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

/* The file at its target (the target's old file kept as TARGET.old if @keep_old); still open. */
static int out_place(struct libsecmap_out *o, const struct stat *times, bool keep_old)
{
	char *old = NULL;
	int err = 0;

	/* perf shows the file's mtime as when it was "captured on": keep it. */
	if (times && futimens(o->fd, (const struct timespec[2]){ times->st_atim,
								  times->st_mtim }) < 0)
		err = -errno;
	if (!err && fsync(o->fd) < 0)
		err = -errno;
	if (!err && !o->tmp)
		err = name_tmpfile(o);
	if (!err && keep_old && asprintf(&old, "%s.old", o->target) < 0) {
		old = NULL;
		err = -ENOMEM;
	}
	/* As perf record keeps perf.data.old: only a regular file, checked again now. */
	if (!err && old) {
		struct stat st;

		if (lstat(o->target, &st) == 0 && !S_ISREG(st.st_mode))
			err = -EINVAL;
		else if (rename(o->target, old) < 0 && errno != ENOENT)
			err = -errno;
	}
	free(old);
	if (!err && rename(o->tmp, o->target) < 0)
		err = -errno;
	if (!err) {
		tmp_unnamed(o);
		free(o->tmp);
		o->tmp = NULL;
		sync_dir(o->dir);
	}
	return err;
}

int libsecmap_out_commit(struct libsecmap_out *o, const struct stat *times)
{
	int err = out_place(o, times, false);

	libsecmap_out_discard(o);
	return err;
}

int libsecmap_out_finish(struct libsecmap_out *o, int err, const struct stat *times)
{
	if (err) {
		libsecmap_out_discard(o);
		return err;
	}
	return libsecmap_out_commit(o, times);
}

struct secmap_output {
	struct libsecmap_out o;
	bool placed;
};

SECMAP_EXPORT int secmap_output_open(const char *path, struct secmap_output **outp)
{
	struct secmap_output *out;
	int err;

	if (!path || !outp)
		return libsecmap_err(-EINVAL);
	*outp = NULL;
	out = calloc(1, sizeof(*out));
	if (!out)
		return libsecmap_err(-ENOMEM);
	err = libsecmap_out_open(&out->o, path, NULL);
	if (err) {
		free(out);
		return libsecmap_err(err);
	}
	*outp = out;
	return 0;
}

SECMAP_EXPORT int secmap_output_fd(const struct secmap_output *out)
{
	return out ? out->o.fd : -1;
}

SECMAP_EXPORT const char *secmap_output_path(const struct secmap_output *out)
{
	return out ? out->o.target : NULL;
}

SECMAP_EXPORT int secmap_output_commit(struct secmap_output *out, unsigned int flags)
{
	int err;

	if (!out || out->placed || out->o.fd < 0 ||
	    (flags & ~(SECMAP_OUTPUT_KEEP_OLD | SECMAP_OUTPUT_KEEP_OPEN)))
		return libsecmap_err(-EINVAL);
	err = out_place(&out->o, NULL, flags & SECMAP_OUTPUT_KEEP_OLD);
	if (!err && (flags & SECMAP_OUTPUT_KEEP_OPEN)) {
		out->placed = true;
		return 0;
	}
	/* Committed and closed, or failed: either way nothing is left to do. */
	libsecmap_out_discard(&out->o);
	out->placed = !err;
	return libsecmap_err(err);
}

SECMAP_EXPORT int secmap_output_close(struct secmap_output *out)
{
	int err = 0;

	if (!out)
		return 0;
	if (out->placed && out->o.fd >= 0) {
		/* Written to in place since the commit: durable before it is called done. */
		if (fsync(out->o.fd) < 0)
			err = -errno;
		if (close(out->o.fd) < 0 && !err)
			err = -errno;
		out->o.fd = -1;
	}
	libsecmap_out_discard(&out->o);
	free(out);
	return libsecmap_err(err);
}
