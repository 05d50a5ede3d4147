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
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "dump_ko.h"

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

/* @dir/<hex of @mod's build-id>, or NULL (no build-id, no memory). */
static char *entry_path(const char *dir, const struct secmap_module *mod, char **hex)
{
	const uint8_t *id;
	size_t id_len = secmap_module_build_id(mod, &id);
	char *path = NULL;

	*hex = NULL;
	if (!id_len)
		return NULL;
	*hex = bytes_hex(id, id_len);
	if (*hex && asprintf(&path, "%s/%s.json", dir, *hex) < 0)
		path = NULL;
	return path;
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
	errno = 0;
	if (json_object_get_int64(v) < 0 || errno)
		return false;
	*val = (uint64_t)json_object_get_int64(v);
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

static struct json_object *build_entry(const char *hex, const struct secmap_module *mod,
				       const struct dump_ko *ko)
{
	struct json_object *root = json_object_new_object(), *sections = json_object_new_object();
	size_t i, n = secmap_module_section_count(mod);

	if (!root || !sections)
		goto fail;
	json_object_object_add(root, "version", json_object_new_int(KO_CACHE_VERSION));
	json_object_object_add(root, "build_id", json_object_new_string(hex));
	json_object_object_add(root, "module", json_object_new_string(secmap_module_name(mod)));
	json_object_object_add(root, "path", json_object_new_string(ko->path));
	for (i = 0; i < n; i++) {
		const struct dump_ko_sec *sec = &ko->secs[i];
		struct json_object *s = NULL;

		if (sec->found) {
			s = json_object_new_object();
			if (!s)
				goto fail;
			json_object_object_add(s, "size", json_object_new_int64((int64_t)sec->s.size));
			json_object_object_add(s, "offset",
					       json_object_new_int64((int64_t)sec->s.offset));
			json_object_object_add(s, "flags", json_object_new_int64((int64_t)sec->s.flags));
			json_object_object_add(s, "symbols",
					       json_object_new_int64((int64_t)sec->s.nr_symbols));
		}
		json_object_object_add(sections,
				       secmap_section_name(secmap_module_section(mod, i)), s);
	}
	json_object_object_add(root, "sections", sections);
	return root;
fail:
	json_object_put(sections);
	json_object_put(root);
	return NULL;
}

int ko_cache_store(const char *dir, const struct secmap_module *mod, const struct dump_ko *ko)
{
	struct json_object *root = NULL;
	char *hex, *path = entry_path(dir, mod, &hex), *tmp = NULL;
	const char *text;
	size_t len;
	int fd = -1, err;

	if (!path) {
		err = hex || !secmap_module_build_id(mod, NULL) ? -EINVAL : -ENOMEM;
		goto out;
	}
	err = make_dirs(dir);
	if (err)
		goto out;
	root = build_entry(hex, mod, ko);
	text = root ? json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN) : NULL;
	if (!text || asprintf(&tmp, "%s/.%s.XXXXXX", dir, hex) < 0) {
		tmp = NULL;
		err = -ENOMEM;
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	len = strlen(text);
	errno = 0;
	if (write(fd, text, len) != (ssize_t)len || close(fd)) {
		fd = -1;
		err = errno ? -errno : -EIO;
		unlink(tmp);
		goto out;
	}
	fd = -1;
	/* Whole or not at all: a reader never sees a half-written entry. */
	if (rename(tmp, path)) {
		err = -errno;
		unlink(tmp);
		goto out;
	}
	err = 0;
out:
	if (fd >= 0) {
		close(fd);
		unlink(tmp);
	}
	json_object_put(root);
	free(tmp);
	free(path);
	free(hex);
	return err;
}
