// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The running kernel's identity and core symbols, so that a recording can
 * be resolved on another machine: against a vmlinux of the same build-id
 * relocated by the reference symbol (KASLR), or against the kallsyms copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "internal.h"

/* /sys/kernel/notes holds a handful of notes: a few hundred bytes. */
#define KERNEL_NOTES_MAX 65536

static int read_kernel_build_id(const char *root, struct secmap_kernel_info *info)
{
	char path[PATH_MAX];
	uint8_t *buf;
	ssize_t n;
	size_t len = 0;
	int fd, err = 0;

	if (snprintf(path, sizeof(path), "%s/sys/kernel/notes", root) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = libsecmap_open_regular(path);
	if (fd < 0)
		return fd == -ENOENT || fd == -EACCES ? 0 : fd;
	buf = malloc(KERNEL_NOTES_MAX);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (len < KERNEL_NOTES_MAX) {
		n = read(fd, buf + len, KERNEL_NOTES_MAX - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (!err)
		err = libsecmap_parse_build_id_notes(buf, len, info->build_id, &info->build_id_len);
	free(buf);
	return err;
}

/* Grow @info->kallsyms by one line. */
static int append_line(struct secmap_kernel_info *info, size_t *cap, const char *line,
		       size_t len)
{
	char *p;

	if (info->kallsyms_len + len > *cap) {
		size_t want = *cap ? *cap * 2 : 1 << 20;

		while (want < info->kallsyms_len + len)
			want *= 2;
		p = realloc(info->kallsyms, want);
		if (!p)
			return -ENOMEM;
		info->kallsyms = p;
		*cap = want;
	}
	memcpy(info->kallsyms + info->kallsyms_len, line, len);
	info->kallsyms_len += len;
	return 0;
}

/* "ffffffff81000000 T _text" and, for modules, "... t fn\t[mod]". */
static int read_kallsyms(const char *root, unsigned int flags, struct secmap_kernel_info *info)
{
	char path[PATH_MAX], *line = NULL, name[128];
	unsigned long long addr;
	size_t cap = 0, size = 0;
	bool nonzero = false;
	ssize_t len;
	char type;
	FILE *f;
	int err = 0, pri = 0;

	if (snprintf(path, sizeof(path), "%s/proc/kallsyms", root) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = libsecmap_fopen_regular(path);
	if (!f)
		return errno == ENOENT || errno == EACCES ? 0 : -errno;
	while ((len = getline(&line, &size, f)) > 0) {
		/*
		 * The core's symbols come first, then the modules' ("\t[mod]"),
		 * then bpf, ftrace and the like, all bracketed: the recording
		 * maps modules itself, and the kernel need not format the rest.
		 */
		if (strchr(line, '['))
			break;
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) != 3)
			continue;
		if (addr)
			nonzero = true;
		/* perf's choice of reference symbol: _text, else _stext. */
		if (!strcmp(name, "_text") && pri < 2) {
			pri = 2;
			info->ref_addr = addr;
			strcpy(info->ref_name, "_text");
		} else if (!strcmp(name, "_stext") && pri < 1) {
			pri = 1;
			info->ref_addr = addr;
			strcpy(info->ref_name, "_stext");
		}
		if (flags & SECMAP_KERNEL_INFO_NO_SYMBOLS) {
			/* _text is the first line: no need for the other 100 000. */
			if (pri == 2)
				break;
			continue;
		}
		err = append_line(info, &cap, line, (size_t)len);
		if (err)
			break;
	}
	free(line);
	fclose(f);
	if (err)
		return err;
	/* Hidden addresses (kptr_restrict, no CAP_SYSLOG) are no symbol table. */
	if (!nonzero || (flags & SECMAP_KERNEL_INFO_NO_SYMBOLS)) {
		free(info->kallsyms);
		info->kallsyms = NULL;
		info->kallsyms_len = 0;
	}
	if (!nonzero) {
		free(info->kallsyms);
		info->kallsyms = NULL;
		info->kallsyms_len = 0;
		info->ref_name[0] = 0;
		info->ref_addr = 0;
		return 0;
	}
	info->have_ref_addr = pri > 0;
	return 0;
}

SECMAP_EXPORT int secmap_kernel_info_read(const char *root, unsigned int flags,
				       struct secmap_kernel_info *info)
{
	struct utsname uts;
	int err;

	if (!info)
		return libsecmap_err(-EINVAL);
	memset(info, 0, sizeof(*info));
	if (!root)
		root = "";
	if (uname(&uts))
		return libsecmap_err(-errno);
	snprintf(info->release, sizeof(info->release), "%s", uts.release);
	err = read_kernel_build_id(root, info);
	if (!err)
		err = read_kallsyms(root, flags, info);
	if (err) {
		secmap_kernel_info_release(info);
		return libsecmap_err(err);
	}
	return 0;
}

SECMAP_EXPORT void secmap_kernel_info_release(struct secmap_kernel_info *info)
{
	if (!info)
		return;
	free(info->kallsyms);
	info->kallsyms = NULL;
	info->kallsyms_len = 0;
}
