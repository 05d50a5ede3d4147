// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A user file's separate debuginfo, found as libdwfl's standard callback
 * finds it on this machine: by build-id under /usr/lib/debug/.build-id,
 * then by its .gnu_debuglink name beside the file, in .debug/ there, and
 * under /usr/lib/debug: the file found must have the module's build-id, or
 * (a module without one) the CRC the link gives.
 *
 * What the standard callback does after that is why this exists. When
 * nothing local has the file it asks debuginfod, and to do so it dlopens
 * libdebuginfod with curl, gnutls, krb5 and ldap behind it, whether or not
 * a server is configured: on a profile of stripped programs that was 7 MiB
 * of secmap report's 17 MiB resident, for no answer. With DEBUGINFOD_URLS
 * set the user asked for servers, and gets the standard callback.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <zlib.h>

#include "internal.h"
#include "perf/debuginfo.h"

/* The CRC of what @fd holds, as objcopy --add-gnu-debuglink computed it (zlib's crc32). */
static bool crc_matches(int fd, GElf_Word want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0, NULL, 0);
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)n);
	return !n && (GElf_Word)crc == want && lseek(fd, 0, SEEK_SET) == 0;
}

/* Whether @fd is the debuginfo of @mod: its build-id, else the link's CRC. */
static bool is_its_debuginfo(Dwfl_Module *mod, int fd, GElf_Word crc)
{
	const unsigned char *bits;
	const void *found;
	GElf_Addr vaddr;
	ssize_t len;
	bool same;
	Elf *elf;
	int n = dwfl_module_build_id(mod, &bits, &vaddr);

	if (n <= 0)
		return crc_matches(fd, crc);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	len = elf ? dwelf_elf_gnu_build_id(elf, &found) : -1;
	same = len == n && !memcmp(found, bits, (size_t)n);
	elf_end(elf);
	return same;
}

/*
 * The link names a file, never a path: what a crafted one says must not
 * lead anywhere but the three places.
 */
static bool plain_name(const char *name)
{
	return name && name[0] && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..");
}

static int by_debuglink(Dwfl_Module *mod, const char *file_name, const char *link, GElf_Word crc,
			char **found)
{
	static const char *const where[] = { "%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s" };
	const char *slash = file_name ? strrchr(file_name, '/') : NULL;
	int dir_len, fd;
	size_t i;
	char *path;

	/* libdwfl gives the path the file was opened by: ours are absolute. */
	if (!slash || file_name[0] != '/' || !plain_name(link))
		return -1;
	dir_len = (int)(slash - file_name);
	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		if (asprintf(&path, where[i], dir_len, file_name, link) < 0)
			return -1;
		/* The file itself is no debuginfo of its own. */
		fd = strcmp(path, file_name) ? libsecmap_open_regular(path) : -ENOENT;
		if (fd >= 0 && is_its_debuginfo(mod, fd, crc)) {
			*found = path;
			return fd;
		}
		if (fd >= 0)
			close(fd);
		free(path);
	}
	return -1;
}

int libsecmap_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			     GElf_Addr base, const char *file_name, const char *debuglink_file,
			     GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	int fd;

	if (urls && urls[0])
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
					  debuglink_file, debuglink_crc, debuginfo_file_name);
	if (fd >= 0)
		return fd;
	return by_debuglink(mod, file_name, debuglink_file, debuglink_crc, debuginfo_file_name);
}
