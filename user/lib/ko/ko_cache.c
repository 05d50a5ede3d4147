// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The section tables' cache on disk (ko_tables.c): what a module's .ko
 * says of each section (size, file offset, flags, symbol count), kept per
 * build-id under the user's cache directory, so that the next program
 * neither searches for the file nor decompresses it. Most of a default
 * `secmap dump --json` went to xz.
 *
 * One file per build-id: an entry is used only when the build-id in it is
 * the loaded module's and it lists every section the module has, in the
 * module's order; anything else (corrupt, truncated, another version) is a
 * miss, and the entry is written again. Writers go through a temporary file
 * and rename(), so a reader sees a whole entry or none, whatever runs
 * beside it.
 *
 * Entries are a fixed binary layout, not JSON: with 1000 modules, json-c
 * building and freeing a tree of each entry was two thirds of a
 * recorder's CPU and made a warm dump slower than reading every .ko.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/*
 * An entry, little-endian throughout (a home directory may be shared by
 * machines of either byte order):
 *	header	struct entry_header
 *	rows	nr_sections x struct entry_row, in the module's section order
 *	path	path_len bytes, the .ko's path, no NUL
 *	names	names_len bytes: each section's name and a NUL, in that order
 */
#define ENTRY_MAGIC		"SMKOTAB"
#define KO_CACHE_VERSION	2

struct entry_header {
	char magic[8];			/* ENTRY_MAGIC and a NUL */
	uint32_t version;
	uint32_t nr_sections;
	uint32_t build_id_len;
	uint32_t path_len;
	uint32_t names_len;
	uint32_t zero;
	uint8_t build_id[SECMAP_BUILD_ID_MAX];
};

struct entry_row {
	uint64_t size;
	uint64_t offset;
	uint64_t flags;
	uint32_t nr_symbols;
	uint32_t found;			/* 1: the .ko has a section of that name */
};

_Static_assert(sizeof(struct entry_header) == 96, "entry header layout");
_Static_assert(sizeof(struct entry_row) == 32, "entry row layout");

/* An entry lists a few dozen sections: anything this big is not ours. */
#define KO_CACHE_MAX_ENTRY	(1 << 20)

SECMAP_EXPORT int secmap_ko_cache_dir(char **dir)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	*dir = NULL;
	/* As the XDG base directory spec has it: a relative value is ignored. */
	if (xdg && xdg[0] == '/')
		n = asprintf(dir, "%s/secmap/ko", xdg);
	else if (home && home[0] == '/')
		n = asprintf(dir, "%s/.cache/secmap/ko", home);
	else
		return libsecmap_err(-ENOENT);
	if (n < 0) {
		*dir = NULL;
		return libsecmap_err(-ENOMEM);
	}
	return 0;
}

#define ENTRY_SUFFIX	".kotab"
#define ENTRY_NAME_MAX	(SECMAP_BUILD_ID_STR_SIZE + sizeof(ENTRY_SUFFIX) - 1)

/* The name of @mod's entry, "<hex of its build-id>.kotab"; false without a build-id. */
static bool entry_name(const struct secmap_module *mod, char name[ENTRY_NAME_MAX])
{
	const uint8_t *id;
	size_t id_len = secmap_module_build_id(mod, &id);

	if (!id_len || secmap_build_id_str(id, id_len, name, SECMAP_BUILD_ID_STR_SIZE))
		return false;
	strcat(name, ENTRY_SUFFIX);
	return true;
}

/* @dir/<hex of @mod's build-id>.kotab, or NULL (no build-id, no memory). */
static char *entry_path(const char *dir, const struct secmap_module *mod, char **hex)
{
	char name[ENTRY_NAME_MAX], *path = NULL;

	*hex = NULL;
	if (!entry_name(mod, name))
		return NULL;
	*hex = strndup(name, strlen(name) - strlen(ENTRY_SUFFIX));
	if (*hex && asprintf(&path, "%s/%s", dir, name) < 0)
		path = NULL;
	return path;
}

/*
 * A dump of a thousand modules, most without an entry, looked each one up
 * in the file system: a failed path walk per module, the kernel's largest
 * share of a warm dump under TCG. One listing answers those misses.
 */
struct libsecmap_ko_cache_listing {
	char **names;		/* sorted by strcmp() */
	size_t nr;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void libsecmap_ko_cache_listing_free(struct libsecmap_ko_cache_listing *listing)
{
	size_t i;

	if (!listing)
		return;
	for (i = 0; i < listing->nr; i++)
		free(listing->names[i]);
	free(listing->names);
	free(listing);
}

struct libsecmap_ko_cache_listing *libsecmap_ko_cache_list(const char *dir)
{
	struct libsecmap_ko_cache_listing *l = calloc(1, sizeof(*l));
	size_t cap = 0;
	struct dirent *de;
	DIR *d;

	if (!l)
		return NULL;
	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return l;	/* no cache yet: no entries */
		free(l);
		return NULL;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;	/* ".", "..", and writers' temporary files */
		if (l->nr == cap) {
			char **n = realloc(l->names, (cap = cap ? 2 * cap : 64) * sizeof(*n));

			if (!n)
				goto fail;
			l->names = n;
		}
		l->names[l->nr] = strdup(de->d_name);
		if (!l->names[l->nr])
			goto fail;
		l->nr++;
	}
	closedir(d);
	if (l->nr > 1)
		qsort(l->names, l->nr, sizeof(*l->names), cmp_name);
	return l;
fail:
	closedir(d);
	libsecmap_ko_cache_listing_free(l);
	return NULL;
}

bool libsecmap_ko_cache_listed(const struct libsecmap_ko_cache_listing *listing, const struct secmap_module *mod)
{
	char name[ENTRY_NAME_MAX], *key = name;

	if (!listing)
		return true;
	if (!listing->nr || !entry_name(mod, name))
		return false;	/* nothing listed, or no name to have an entry under */
	return bsearch(&key, listing->names, listing->nr, sizeof(*listing->names), cmp_name);
}

/* The entry at @path read whole into *@len bytes, or NULL: missing, not a regular file, too big. */
static uint8_t *read_entry(const char *path, size_t *len)
{
	uint8_t *buf = NULL;
	struct stat st;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size >= (off_t)sizeof(struct entry_header) &&
	    st.st_size <= KO_CACHE_MAX_ENTRY) {
		buf = malloc((size_t)st.st_size);
		n = buf ? read(fd, buf, (size_t)st.st_size) : -1;
		if (n == st.st_size) {
			*len = (size_t)n;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	close(fd);
	return buf;
}

/*
 * @buf, @len: an entry. Fill @out->rows for @mod from it; false unless it
 * is whole, of this version, of @mod's build-id, and lists @mod's sections
 * in @mod's order (a .ko's build gives one order).
 */
static bool parse_entry(const uint8_t *buf, size_t len, const struct secmap_module *mod,
			struct libsecmap_ko_rows *out)
{
	size_t i, n = secmap_module_section_count(mod), id_len, rows_len;
	const struct entry_header *h = (const void *)buf;
	const struct entry_row *rows = (const void *)(h + 1);
	const char *path, *names, *end;
	uint32_t path_len, names_len;
	const uint8_t *id;

	id_len = secmap_module_build_id(mod, &id);
	path_len = le32toh(h->path_len);
	names_len = le32toh(h->names_len);
	if (memcmp(h->magic, ENTRY_MAGIC, sizeof(h->magic)) ||
	    le32toh(h->version) != KO_CACHE_VERSION || le32toh(h->nr_sections) != n ||
	    le32toh(h->build_id_len) != id_len || id_len > sizeof(h->build_id) ||
	    memcmp(h->build_id, id, id_len) || h->zero)
		return false;
	/*
	 * n is a loaded module's count, so this product cannot overflow; the
	 * sum is taken in 64 bits, where lengths near 4 GiB cannot wrap it.
	 */
	rows_len = n * sizeof(*rows);
	if ((uint64_t)len != (uint64_t)sizeof(*h) + rows_len + path_len + names_len || !path_len)
		return false;
	path = (const char *)buf + sizeof(*h) + rows_len;
	names = path + path_len;
	end = names + names_len;
	if (memchr(path, '\0', path_len))
		return false;
	for (i = 0; i < n; i++) {
		const char *name = secmap_section_name(secmap_module_section(mod, i));
		const char *nul = memchr(names, '\0', (size_t)(end - names));
		struct libsecmap_ko_row *sec = &out->rows[i];
		uint32_t found = le32toh(rows[i].found);

		if (!nul || strcmp(names, name) || found > 1)
			return false;
		names = nul + 1;
		sec->found = found;
		if (!found)
			continue;
		sec->s.sz = sizeof(sec->s);
		sec->s.size = le64toh(rows[i].size);
		sec->s.offset = le64toh(rows[i].offset);
		sec->s.flags = le64toh(rows[i].flags);
		sec->s.nr_symbols = le32toh(rows[i].nr_symbols);
	}
	if (names != end)
		return false;
	out->path = strndup(path, path_len);
	return true;
}

int libsecmap_ko_cache_load(const char *dir, const struct secmap_module *mod,
			    struct libsecmap_ko_rows *out)
{
	char *hex, *path = entry_path(dir, mod, &hex);
	uint8_t *buf = NULL;
	size_t len = 0;
	int err = -ENOENT;

	memset(out, 0, sizeof(*out));
	if (path)
		buf = read_entry(path, &len);
	if (!buf)
		goto out;
	out->rows = calloc(secmap_module_section_count(mod) ?: 1, sizeof(*out->rows));
	if (!out->rows) {
		err = -ENOMEM;
		goto out;
	}
	/* parse_entry() sets the path last: none after a match is strndup() failing. */
	if (parse_entry(buf, len, mod, out))
		err = out->path ? 0 : -ENOMEM;
	if (err) {
		free(out->rows);
		memset(out, 0, sizeof(*out));
	}
out:
	free(buf);
	free(path);
	free(hex);
	return err;
}

/* mkdir -p @dir, private: the entries name the user's files. */
static int make_dirs(const char *dir)
{
	char *p = strdup(dir), *slash;
	int err = 0;

	if (!p)
		return -ENOMEM;
	for (slash = strchr(p + 1, '/'); ; slash = strchr(slash + 1, '/')) {
		if (slash)
			*slash = '\0';
		if (mkdir(p, 0700) && errno != EEXIST) {
			err = -errno;
			break;
		}
		if (!slash)
			break;
		*slash = '/';
	}
	free(p);
	return err;
}

/* @mod's entry from @ko, malloc()ed into *@buf, *@len bytes; 0 or -errno. */
static int encode_entry(const struct secmap_module *mod, const struct libsecmap_ko_rows *ko,
			uint8_t **buf, size_t *len)
{
	size_t i, n = secmap_module_section_count(mod), path_len, names_len = 0, id_len;
	struct entry_header *h;
	struct entry_row *rows;
	const uint8_t *id;
	char *p;

	id_len = secmap_module_build_id(mod, &id);
	path_len = ko->path ? strlen(ko->path) : 0;
	for (i = 0; i < n; i++)
		names_len += strlen(secmap_section_name(secmap_module_section(mod, i))) + 1;
	*len = sizeof(*h) + n * sizeof(*rows) + path_len + names_len;
	if (!path_len || id_len > sizeof(h->build_id) || *len > KO_CACHE_MAX_ENTRY)
		return -EINVAL;
	*buf = calloc(1, *len);
	if (!*buf)
		return -ENOMEM;
	h = (struct entry_header *)*buf;
	memcpy(h->magic, ENTRY_MAGIC, sizeof(ENTRY_MAGIC));
	h->version = htole32(KO_CACHE_VERSION);
	h->nr_sections = htole32((uint32_t)n);
	h->build_id_len = htole32((uint32_t)id_len);
	h->path_len = htole32((uint32_t)path_len);
	h->names_len = htole32((uint32_t)names_len);
	memcpy(h->build_id, id, id_len);
	rows = (struct entry_row *)(h + 1);
	for (i = 0; i < n; i++) {
		const struct libsecmap_ko_row *sec = &ko->rows[i];

		if (!sec->found)
			continue;
		if (sec->s.nr_symbols > UINT32_MAX) {
			free(*buf);
			*buf = NULL;
			return -EOVERFLOW;
		}
		rows[i].size = htole64(sec->s.size);
		rows[i].offset = htole64(sec->s.offset);
		rows[i].flags = htole64(sec->s.flags);
		rows[i].nr_symbols = htole32((uint32_t)sec->s.nr_symbols);
		rows[i].found = htole32(1);
	}
	p = (char *)(rows + n);
	memcpy(p, ko->path, path_len);
	p += path_len;
	for (i = 0; i < n; i++) {
		const char *name = secmap_section_name(secmap_module_section(mod, i));
		size_t l = strlen(name) + 1;

		memcpy(p, name, l);
		p += l;
	}
	return 0;
}

int libsecmap_ko_cache_store(const char *dir, const struct secmap_module *mod,
			     const struct libsecmap_ko_rows *ko)
{
	char *hex, *path = entry_path(dir, mod, &hex), *tmp = NULL;
	uint8_t *buf = NULL;
	size_t len = 0;
	ssize_t n;
	int fd, err;

	if (!path) {
		err = hex || !secmap_module_build_id(mod, NULL) ? -EINVAL : -ENOMEM;
		goto out;
	}
	err = encode_entry(mod, ko, &buf, &len);
	if (err)
		goto out;
	err = make_dirs(dir);
	if (err)
		goto out;
	if (asprintf(&tmp, "%s/.%s.XXXXXX", dir, hex) < 0) {
		tmp = NULL;
		err = -ENOMEM;
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	n = write(fd, buf, len);
	if (n != (ssize_t)len)
		err = n < 0 ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	/* Whole or not at all: a reader never sees a half-written entry. */
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
out:
	free(buf);
	free(tmp);
	free(path);
	free(hex);
	return err;
}
