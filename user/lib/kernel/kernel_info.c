// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The running kernel's identity and core symbols, so that a recording can
 * be resolved on another machine: against a vmlinux of the same build-id
 * relocated by the reference symbol (KASLR), or against the kallsyms copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Larger than any kernel's kallsyms (a debug kernel's is ~20 MiB with its modules). */
#define KALLSYMS_MAX (256u << 20)
/* What one read() asks for: /proc hands out a page at a time, files more. */
#define KALLSYMS_CHUNK (64u << 10)

/*
 * A kallsyms text read a chunk at a time. Only its first lines are parsed
 * (the reference symbol and whether addresses are shown); after that it is
 * searched for the first bracketed line ("\t[mod]", then "[bpf]" and the
 * like), where the core's part ends. sscanf() on each of ~150 000 lines
 * was most of a recorder's user time under emulation.
 */
struct kallsyms_scan {
	struct secmap_kernel_info *info;
	unsigned int flags;
	size_t cap;
	size_t parsed;		/* whole lines parsed, or bytes searched for '[' */
	int pri;		/* reference symbol found: 2 _text, 1 _stext */
	bool nonzero;		/* an address that is not 0: they are shown */
	bool cut;		/* the core's end is reached: read no further */
};

/*
 * "ffffffff81000000 T _text", @len bytes without its newline: false if
 * @line is not one. The hex by hand: ~150 000 lines, and strtoull's locale
 * handling shows.
 */
bool libsecmap_kallsyms_parse(const char *line, size_t len, uint64_t *addr, char *type,
			      const char **name, size_t *name_len)
{
	const char *end = line + len, *p;

	for (*addr = 0, p = line; p < end && p - line < 16; p++) {
		unsigned int d = (unsigned char)*p;

		if (d - '0' < 10)
			d -= '0';
		else if ((d | 0x20) - 'a' < 6)
			d = (d | 0x20) - 'a' + 10;
		else
			break;
		*addr = *addr << 4 | d;
	}
	if (p == line || end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return false;
	*type = p[1];
	*name = p + 3;
	*name_len = (size_t)(end - *name);
	return true;
}

/* One line while the identity is unknown: the reference symbol, addresses shown or not. */
static void scan_line(struct kallsyms_scan *sc, const char *line, size_t len)
{
	struct secmap_kernel_info *info = sc->info;
	const char *name;
	size_t name_len;
	uint64_t addr;
	char type;

	if (memchr(line, '[', len)) {
		sc->cut = true;
		return;
	}
	if (!libsecmap_kallsyms_parse(line, len, &addr, &type, &name, &name_len))
		return;
	if (addr)
		sc->nonzero = true;
	/* perf's choice of reference symbol: _text, else _stext. */
	if (name_len == 5 && !memcmp(name, "_text", 5) && sc->pri < 2) {
		sc->pri = 2;
		info->ref_addr = addr;
		strcpy(info->ref_name, "_text");
	} else if (name_len == 6 && !memcmp(name, "_stext", 6) && sc->pri < 1) {
		sc->pri = 1;
		info->ref_addr = addr;
		strcpy(info->ref_name, "_stext");
	}
}

/* The bytes read since the last call; cuts the text at the core's end. */
static void scan_more(struct kallsyms_scan *sc, bool at_eof)
{
	char *buf = sc->info->kallsyms, *nl, *br;
	size_t len = sc->info->kallsyms_len, line;

	while (sc->pri < 2 || !sc->nonzero) {
		nl = memchr(buf + sc->parsed, '\n', len - sc->parsed);
		if (!nl) {
			if (!at_eof || sc->parsed == len)
				return;
			nl = buf + len;
		}
		line = sc->parsed;
		sc->parsed = (size_t)(nl - buf) + (nl < buf + len);
		scan_line(sc, buf + line, (size_t)(nl - buf) - line);
		if (sc->cut) {
			sc->info->kallsyms_len = line;
			return;
		}
		/* _text is the first line: no need for the other 100 000. */
		if (sc->pri == 2 && (sc->flags & SECMAP_KERNEL_INFO_NO_SYMBOLS)) {
			sc->cut = true;
			return;
		}
	}
	/* The identity is known: now only the core's end is looked for. */
	br = memchr(buf + sc->parsed, '[', len - sc->parsed);
	if (!br) {
		sc->parsed = len;
		return;
	}
	while (br > buf && br[-1] != '\n')
		br--;
	sc->info->kallsyms_len = (size_t)(br - buf);
	sc->cut = true;
}

static int scan_kallsyms(int fd, struct kallsyms_scan *sc)
{
	struct secmap_kernel_info *info = sc->info;
	ssize_t n;
	char *p;

	while (!sc->cut) {
		if (sc->cap - info->kallsyms_len < KALLSYMS_CHUNK) {
			size_t want = sc->cap ? sc->cap * 2 : 1 << 20;

			if (want > KALLSYMS_MAX)
				return -EFBIG;
			p = realloc(info->kallsyms, want);
			if (!p)
				return -ENOMEM;
			info->kallsyms = p;
			sc->cap = want;
		}
		n = read(fd, info->kallsyms + info->kallsyms_len, sc->cap - info->kallsyms_len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		info->kallsyms_len += (size_t)n;
		scan_more(sc, !n);
		if (!n)
			break;
	}
	return 0;
}

/*
 * "ffffffff81000000 T _text" and, for modules, "... t fn\t[mod]": @fd's
 * text up to the first module's line into @info, with the reference
 * symbol. Addresses all 0 (kptr_restrict, no CAP_SYSLOG) are no symbol
 * table: then nothing is kept.
 */
static int read_kallsyms_fd(int fd, unsigned int flags, struct secmap_kernel_info *info)
{
	struct kallsyms_scan sc = { .info = info, .flags = flags };
	struct stat st;
	int err;

	info->kallsyms = NULL;
	info->kallsyms_len = 0;
	/* A file's size is known (not /proc's): read at once, without growing. */
	if (!(flags & SECMAP_KERNEL_INFO_NO_SYMBOLS) && !fstat(fd, &st) && st.st_size > 0 &&
	    (uint64_t)st.st_size < KALLSYMS_MAX) {
		sc.cap = (size_t)st.st_size + KALLSYMS_CHUNK;
		info->kallsyms = malloc(sc.cap);
		if (!info->kallsyms)
			return -ENOMEM;
	}
	err = scan_kallsyms(fd, &sc);
	if (err || !sc.nonzero || (flags & SECMAP_KERNEL_INFO_NO_SYMBOLS)) {
		free(info->kallsyms);
		info->kallsyms = NULL;
		info->kallsyms_len = 0;
	}
	if (err)
		return err;
	if (!sc.nonzero) {
		info->ref_name[0] = 0;
		info->ref_addr = 0;
		return 0;
	}
	info->have_ref_addr = sc.pri > 0;
	return 0;
}

static int read_kallsyms(const char *root, unsigned int flags, struct secmap_kernel_info *info)
{
	char path[PATH_MAX];
	int fd, err;

	if (snprintf(path, sizeof(path), "%s/proc/kallsyms", root) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = libsecmap_open_regular(path);
	if (fd < 0)
		return fd == -ENOENT || fd == -EACCES ? 0 : fd;
	err = read_kallsyms_fd(fd, flags, info);
	close(fd);
	return err;
}

#define KERNEL_INFO_SZ_1_0 offsetofend(struct secmap_kernel_info, kallsyms_len)

SECMAP_EXPORT int secmap_kernel_info_match_kallsyms(const struct secmap_kernel_info *info,
						    const char *text, size_t len, size_t *core_len)
{
	struct secmap_kernel_info copy = {
		.sz = sizeof(copy), .kallsyms = (char *)text, .kallsyms_len = len,
	};
	struct kallsyms_scan sc = { .info = &copy };

	if (!info || info->sz < KERNEL_INFO_SZ_1_0 || (!text && len) || !core_len)
		return libsecmap_err(-EINVAL);
	/* Read only: the scan moves kallsyms_len, never the bytes. */
	scan_more(&sc, true);
	/* Another boot's (KASLR), another build's, or addresses hidden. */
	if (!info->have_ref_addr || !sc.nonzero || !sc.pri || strcmp(copy.ref_name, info->ref_name) ||
	    copy.ref_addr != info->ref_addr || !copy.kallsyms_len)
		return libsecmap_err(-ESTALE);
	*core_len = copy.kallsyms_len;
	return 0;
}

SECMAP_EXPORT int secmap_kernel_info_read(const char *root, unsigned int flags,
				       struct secmap_kernel_info *info)
{
	SECMAP_OPTS(secmap_kernel_info, out);
	struct utsname uts;
	int err;

	if (!info || info->sz < KERNEL_INFO_SZ_1_0)
		return libsecmap_err(-EINVAL);
	if (!root)
		root = "";
	if (uname(&uts))
		return libsecmap_err(-errno);
	snprintf(out.release, sizeof(out.release), "%s", uts.release);
	err = read_kernel_build_id(root, &out);
	if (!err)
		err = read_kallsyms(root, flags, &out);
	if (err) {
		secmap_kernel_info_release(&out);
		return libsecmap_err(err);
	}
	return libsecmap_struct_out(info, 0, &out, sizeof(out));
}

SECMAP_EXPORT void secmap_kernel_info_release(struct secmap_kernel_info *info)
{
	if (!info)
		return;
	free(info->kallsyms);
	info->kallsyms = NULL;
	info->kallsyms_len = 0;
}
