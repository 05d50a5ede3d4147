// SPDX-License-Identifier: GPL-2.0
/*
 * What `secmap dump` reads from a module's .ko (each section's size, file
 * offset, flags and symbol count), kept per build-id under the user's cache
 * directory, so that the next dump neither searches for the file nor
 * decompresses it. Most of a default `dump --json` went to xz.
 *
 * One JSON file per build-id: an entry is used only when the build-id in it
 * is the loaded module's and it lists every section the module has; anything
 * else (corrupt, truncated, another version) is a miss, and the entry is
 * written again. Writers go through a temporary file and rename(), so a
 * reader sees a whole entry or none, whatever runs beside it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "dump_ko.h"
#include "json_out.h"
#include "secmap_cli.h"

#define KO_CACHE_VERSION	1
/* An entry lists a few dozen sections: anything this big is not ours. */
#define KO_CACHE_MAX_ENTRY	(1 << 20)

char *ko_cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *dir = NULL;

	/* As the XDG base directory spec has it: a relative value is ignored. */
	if (xdg && xdg[0] == '/') {
		if (asprintf(&dir, "%s/secmap/ko", xdg) < 0)
			return NULL;
	} else if (home && home[0] == '/') {
		if (asprintf(&dir, "%s/.cache/secmap/ko", home) < 0)
			return NULL;
	}
	return dir;
}

#define ENTRY_SUFFIX	".json"
#define ENTRY_NAME_MAX	(SECMAP_BUILD_ID_STR_SIZE + sizeof(ENTRY_SUFFIX) - 1)

/* The name of @mod's entry, "<hex of its build-id>.json"; false without a build-id. */
static bool entry_name(const struct secmap_module *mod, char name[ENTRY_NAME_MAX])
{
	const uint8_t *id;
	size_t id_len = secmap_module_build_id(mod, &id);

	if (!id_len || secmap_build_id_str(id, id_len, name, SECMAP_BUILD_ID_STR_SIZE))
		return false;
	strcat(name, ENTRY_SUFFIX);
	return true;
}

/* @dir/<hex of @mod's build-id>.json, or NULL (no build-id, no memory). */
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
struct ko_cache_listing {
	char **names;		/* sorted by strcmp() */
	size_t nr;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void ko_cache_listing_free(struct ko_cache_listing *listing)
{
	size_t i;

	if (!listing)
		return;
	for (i = 0; i < listing->nr; i++)
		free(listing->names[i]);
	free(listing->names);
	free(listing);
}

struct ko_cache_listing *ko_cache_list(const char *dir)
{
	struct ko_cache_listing *l = calloc(1, sizeof(*l));
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
	ko_cache_listing_free(l);
	return NULL;
}

bool ko_cache_listed(const struct ko_cache_listing *listing, const struct secmap_module *mod)
{
	char name[ENTRY_NAME_MAX], *key = name;

	if (!listing)
		return true;
	if (!listing->nr || !entry_name(mod, name))
		return false;	/* nothing listed, or no name to have an entry under */
	return bsearch(&key, listing->names, listing->nr, sizeof(*listing->names), cmp_name);
}

/* The entry at @path parsed, or NULL: missing, not a regular file, too big, not JSON. */
static struct json_object *read_entry(const char *path)
{
	struct json_object *root = NULL;
	struct stat st;
	char *buf;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    st.st_size > KO_CACHE_MAX_ENTRY) {
		close(fd);
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	n = buf ? read(fd, buf, (size_t)st.st_size) : -1;
	close(fd);
	if (n == st.st_size) {
		buf[n] = '\0';
		root = json_tokener_parse(buf);
	}
	free(buf);
	return root;
}

static bool get_u64(struct json_object *obj, const char *key, uint64_t *val)
{
	struct json_object *v;

	if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_int))
		return false;
	/* Entries are written unsigned; json-c keeps numbers past INT64_MAX as such. */
	errno = 0;
	if (json_object_get_int64(v) < 0 || errno)
		return false;
	*val = json_object_get_uint64(v);
	return true;
}

static const char *get_str(struct json_object *obj, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* Every section of @mod from @sections into @out->secs; false if one is not there. */
static bool fill_sections(struct json_object *sections, const struct secmap_module *mod,
			  struct dump_ko *out)
{
	size_t i, n = secmap_module_section_count(mod);

	for (i = 0; i < n; i++) {
		const char *name = secmap_section_name(secmap_module_section(mod, i));
		struct dump_ko_sec *sec = &out->secs[i];
		struct json_object *s;
		uint64_t nr;

		if (!json_object_object_get_ex(sections, name, &s))
			return false;
		if (json_object_is_type(s, json_type_null))
			continue;	/* the .ko has no section of that name */
		if (!json_object_is_type(s, json_type_object) ||
		    !get_u64(s, "size", &sec->s.size) || !get_u64(s, "offset", &sec->s.offset) ||
		    !get_u64(s, "flags", &sec->s.flags) || !get_u64(s, "symbols", &nr))
			return false;
		sec->s.nr_symbols = nr;
		sec->found = true;
	}
	return true;
}

int ko_cache_load(const char *dir, const struct secmap_module *mod, struct dump_ko *out)
{
	struct json_object *root = NULL, *sections;
	char *hex, *path = entry_path(dir, mod, &hex);
	const char *s;
	uint64_t version;
	int err = -ENOENT;

	memset(out, 0, sizeof(*out));
	if (!path)
		goto out;
	root = read_entry(path);
	if (!root || !json_object_is_type(root, json_type_object) ||
	    !get_u64(root, "version", &version) || version != KO_CACHE_VERSION)
		goto out;
	/* The file name says which build-id; the content must agree. */
	s = get_str(root, "build_id");
	if (!s || strcmp(s, hex))
		goto out;
	s = get_str(root, "path");
	if (!s || !json_object_object_get_ex(root, "sections", &sections) ||
	    !json_object_is_type(sections, json_type_object))
		goto out;
	out->secs = calloc(secmap_module_section_count(mod) ?: 1, sizeof(*out->secs));
	out->path = strdup(s);
	if (!out->secs || !out->path || !fill_sections(sections, mod, out)) {
		err = out->secs && out->path ? -ENOENT : -ENOMEM;
		free(out->secs);
		free(out->path);
		memset(out, 0, sizeof(*out));
		goto out;
	}
	err = 0;
out:
	json_object_put(root);
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

/*
 * Can @mod's entry from @ko be read back as written? A JSON string holds
 * UTF-8 only: a path or section name that is not would come back as
 * another (see json_out.c), so such a module is not cached.
 */
static bool entry_exact(const struct secmap_module *mod, const struct dump_ko *ko)
{
	size_t i, n = secmap_module_section_count(mod);

	if (!ko->path || !utf8_valid(ko->path))
		return false;
	for (i = 0; i < n; i++)
		if (!utf8_valid(secmap_section_name(secmap_module_section(mod, i))))
			return false;
	return true;
}

static int write_entry(FILE *f, const char *hex, const struct secmap_module *mod,
		       const struct dump_ko *ko)
{
	struct json_out *o = json_out_stream(f, false);
	size_t i, n = secmap_module_section_count(mod);

	if (!o)
		return -ENOMEM;
	json_out_object_begin(o, NULL);
	json_out_u64(o, "version", KO_CACHE_VERSION);
	json_out_str(o, "build_id", hex);
	json_out_str(o, "module", secmap_module_name(mod));
	json_out_str(o, "path", ko->path);
	/* Keyed by name: what ko_cache_load() looks up, whatever order the kernel has. */
	json_out_object_begin(o, "sections");
	for (i = 0; i < n; i++) {
		const struct dump_ko_sec *sec = &ko->secs[i];
		const char *name = secmap_section_name(secmap_module_section(mod, i));

		if (!sec->found) {
			json_out_null(o, name);
			continue;
		}
		json_out_object_begin(o, name);
		json_out_u64(o, "size", sec->s.size);
		json_out_u64(o, "offset", sec->s.offset);
		json_out_u64(o, "flags", sec->s.flags);
		json_out_u64(o, "symbols", sec->s.nr_symbols);
		json_out_object_end(o);
	}
	json_out_object_end(o);
	json_out_object_end(o);
	return json_out_finish(o);
}

int ko_cache_store(const char *dir, const struct secmap_module *mod, const struct dump_ko *ko)
{
	char *hex, *path = entry_path(dir, mod, &hex), *tmp = NULL;
	FILE *f;
	int fd, err;

	if (!path) {
		err = hex || !secmap_module_build_id(mod, NULL) ? -EINVAL : -ENOMEM;
		goto out;
	}
	if (!entry_exact(mod, ko)) {
		err = -EILSEQ;
		goto out;
	}
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
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlink(tmp);
		goto out;
	}
	err = write_entry(f, hex, mod, ko);
	errno = 0;
	if (fclose(f) && !err)
		err = errno ? -errno : -EIO;
	/* Whole or not at all: a reader never sees a half-written entry. */
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
out:
	free(tmp);
	free(path);
	free(hex);
	return err;
}
