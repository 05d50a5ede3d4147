// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Which file a user frame's functions are read from (user_syms.c reads
 * them): the one at the path a map names, when that is the build perf
 * recorded for it (HEADER_BUILD_ID) or perf recorded none, else the copy
 * in perf's build-id cache; and which paths from a perf.data may be
 * opened at all.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "perf/session.h"

const struct user_recorded *libsecmap_user_recorded(const struct libsecmap_user_syms *u,
						    const char *path)
{
	uint64_t h = libsecmap_hashmap_hash_u64(&u->recorded_by_path, (uintptr_t)path);
	struct libsecmap_hashmap_slot *s;

	for (s = libsecmap_hashmap_probe(&u->recorded_by_path, h); s;
	     s = libsecmap_hashmap_next(&u->recorded_by_path, h, s))
		if (u->recorded[s->item].path == path)
			return &u->recorded[s->item];
	return NULL;
}

int libsecmap_user_syms_recorded(struct libsecmap_user_syms *u, const char *path,
				 const uint8_t *id, size_t len)
{
	struct user_recorded *r;

	if (!len || len > USER_BUILD_ID_MAX || libsecmap_user_recorded(u, path))
		return 0;
	if (libsecmap_grow_in(&u->recorded, &u->cap_recorded, u->nr_recorded,
			      sizeof(*u->recorded), 64) ||
	    libsecmap_hashmap_add(&u->recorded_by_path,
				  libsecmap_hashmap_hash_u64(&u->recorded_by_path, (uintptr_t)path),
				  u->nr_recorded))
		return -ENOMEM;
	r = &u->recorded[u->nr_recorded++];
	r->path = path;
	memcpy(r->id, id, len);
	r->len = len;
	return 0;
}

/*
 * Whether @path, from the perf.data, may be opened: an absolute path with
 * no ".." in it, as the kernel writes a mapped file's (d_path()); not
 * "[vdso]", "//anon" or a name made up to reach elsewhere.
 */
bool libsecmap_user_path_ok(const char *path)
{
	static const char *const pseudo[] = { "/proc/", "/sys/", "/dev/" };
	const char *p;
	size_t i;

	if (path[0] != '/')
		return false;
	/* Files there are no programs, and some (/proc/kcore) are vast. */
	for (i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++)
		if (!strncmp(path, pseudo[i], strlen(pseudo[i])))
			return false;
	for (p = path; (p = strstr(p, "/..")); p += 3)
		if (p[3] == '/' || !p[3])
			return false;
	return true;
}

/*
 * perf's build-id cache's copy of the build @want: BUILDID_DIR/.build-id/
 * ab/cdef.../elf ("vdso" for the vDSO, which perf record saves there).
 * The name is made of the build-id's hex digits alone. malloc()ed; NULL
 * if there is no cache or no memory.
 */
char *libsecmap_user_cached_copy(const struct libsecmap_user_syms *u, const char *path,
				 const struct user_recorded *want)
{
	char hex[2 * USER_BUILD_ID_MAX + 1], *p;
	size_t i;

	if (!u->buildid_dir || !want->len)
		return NULL;
	for (i = 0; i < want->len; i++)
		snprintf(hex + 2 * i, 3, "%02x", want->id[i]);
	if (asprintf(&p, "%s/.build-id/%.2s/%s/%s", u->buildid_dir, hex, hex + 2,
		     strcmp(path, "[vdso]") ? "elf" : "vdso") < 0)
		return NULL;
	return p;
}
