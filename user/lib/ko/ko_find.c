// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libsecmap: find the file a loaded module came from.
 *
 * Order (the first place that has a match wins):
 *  a. opts->paths: a file whose name is the module's, or a directory
 *     searched recursively;
 *  b. by build-id: perf's cache BUILDID_CACHE/.build-id/xx/rest (a
 *     directory holding "elf", or any file in it that opens as a module;
 *     or, in older perf layouts, the file itself), then the debuginfo
 *     link DEBUG_ROOT/.build-id/xx/rest.debug;
 *  c. DEBUG_ROOT/lib/modules/RELEASE, recursively;
 *  d. MODULES_ROOT/RELEASE/modules.dep.
 *
 * Names compare with '-' and '_' alike, as modprobe does: module "foo_bar"
 * may be in foo-bar.ko.xz. A root given as "" skips its places.
 *
 * The places that are listings (a. directories, c. and d.) are read once
 * per index, on first use, into a table of module files sorted by name:
 * "secmap dump" looks up every loaded module, and reading modules.dep or
 * walking a tree once per module made a thousand modules cost a thousand
 * reads. b. is a stat() or two by build-id, done at each lookup.
 * secmap_ko_find() is one lookup in an index of its own.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "internal.h"


/* Deeper than any module tree; bounds the descriptors a walk holds open. */
#define KO_WALK_MAX_DEPTH 32

/*
 * File name endings of module files. ".ko.debug" is how Fedora's
 * kernel-debuginfo names them under /usr/lib/debug/lib/modules.
 */
static const char *const ko_suffixes[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz", ".ko.debug" };

/* One module file a listing holds. */
struct ko_entry {
	const char *key;	/* module name, '-' spelt '_'; points into @path's block */
	char *path;		/* malloc()ed together with key: "path\0key\0" */
	size_t seq;		/* order of listing (modules.dep: first listed wins) */
};

enum ko_place_kind {
	KO_PLACE_PATH,		/* an opts->paths entry: a module file, or a tree */
	KO_PLACE_TREE,		/* DEBUG_ROOT/lib/modules/RELEASE */
	KO_PLACE_MODULES_DEP,	/* MODULES_ROOT/RELEASE, through its modules.dep */
};

/* A place that is a listing, read on first use. */
struct ko_place {
	enum ko_place_kind kind;
	char *root;
	bool loaded;
	struct ko_entry *entries;	/* by key, then path (seq for modules.dep) */
	size_t nr;
	size_t cap;
};

struct secmap_ko_index {
	struct ko_place *places;	/* opts->paths in order, then c., then d. */
	size_t nr_places;
	size_t nr_paths;		/* how many of them come before b. */
	char *buildid_cache;		/* NULL: skipped */
	char *debug_root;		/* NULL: skipped */
};

static const char *path_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

size_t libsecmap_ko_name_len(const char *base)
{
	size_t blen = strlen(base), slen, k;

	for (k = 0; k < sizeof(ko_suffixes) / sizeof(ko_suffixes[0]); k++) {
		slen = strlen(ko_suffixes[k]);
		if (blen > slen && !strcmp(base + blen - slen, ko_suffixes[k]))
			return blen - slen;
	}
	return 0;
}

/* @len chars of @name into @key, '-' as '_': the form names compare in. */
static void name_key(char *key, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		key[i] = libsecmap_modname_char(name[i]);
	key[len] = '\0';
}

static bool is_regular(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/*
 * Add @dir/@base (or @base alone if @dir is NULL) to @pl if @base names a
 * module file. 0 or -ENOMEM.
 */
static int place_add(struct ko_place *pl, const char *dir, const char *base)
{
	size_t name_len = libsecmap_ko_name_len(path_base(base)), plen;
	struct ko_entry *e;
	char *p;

	if (!name_len)
		return 0;
	if (pl->nr == pl->cap) {
		size_t cap = pl->cap ? 2 * pl->cap : 16;

		e = realloc(pl->entries, cap * sizeof(*e));
		if (!e)
			return -ENOMEM;
		pl->entries = e;
		pl->cap = cap;
	}
	plen = (dir ? strlen(dir) + 1 : 0) + strlen(base);
	p = malloc(plen + 1 + name_len + 1);
	if (!p)
		return -ENOMEM;
	if (dir)
		sprintf(p, "%s/%s", dir, base);
	else
		strcpy(p, base);
	name_key(p + plen + 1, path_base(p), name_len);
	e = &pl->entries[pl->nr];
	e->path = p;
	e->key = p + plen + 1;
	e->seq = pl->nr++;
	return 0;
}

/*
 * Collect the module files under @dirfd (named @dir) into @pl. Not
 * nftw(): it stat()s every entry and takes no context pointer; readdir's
 * d_type lets a walk of a kernel build tree (tens of thousands of files)
 * stat almost nothing. Symlinked directories are not followed (no loops,
 * and no wandering from /lib/modules/R/build into the kernel sources);
 * symlinked files are, when they end at a regular file. Unreadable
 * directories are skipped, as find(1) does.
 */
static int walk(int dirfd, const char *dir, int depth, struct ko_place *pl)
{
	struct dirent *de;
	DIR *d;
	int err = 0;

	d = fdopendir(dirfd);
	if (!d) {
		err = errno == ENOMEM ? -ENOMEM : 0;
		close(dirfd);
		return err;
	}
	while (!err && (de = readdir(d))) {
		unsigned char type = de->d_type;
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (type == DT_UNKNOWN) {
			if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW))
				continue;
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK :
			       S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
		}
		if (type == DT_DIR) {
			char *sub;
			int fd;

			if (depth >= KO_WALK_MAX_DEPTH)
				continue;
			fd = openat(dirfd, de->d_name,
				    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0)
				continue;
			if (asprintf(&sub, "%s/%s", dir, de->d_name) < 0) {
				close(fd);
				err = -ENOMEM;
				break;
			}
			err = walk(fd, sub, depth + 1, pl);
			free(sub);
			continue;
		}
		if ((type != DT_REG && type != DT_LNK) || !libsecmap_ko_name_len(de->d_name))
			continue;
		/* A link must end at a regular file; stat() follows it. */
		if (type == DT_LNK &&
		    (fstatat(dirfd, de->d_name, &st, 0) || !S_ISREG(st.st_mode)))
			continue;
		err = place_add(pl, dir, de->d_name);
	}
	closedir(d);
	return err;
}

static int walk_dir(const char *dir, struct ko_place *pl)
{
	size_t len = strlen(dir);
	char *root;
	int fd, err;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* absent or unreadable: nothing here */
	/* "dir/" gives "dir/x.ko", not "dir//x.ko"; "/" gives "/x.ko". */
	while (len > 0 && dir[len - 1] == '/')
		len--;
	root = strndup(dir, len);
	if (!root) {
		close(fd);
		return -ENOMEM;
	}
	err = walk(fd, root, 0, pl);
	free(root);
	return err;
}

/*
 * MODULES_ROOT/RELEASE/modules.dep, as depmod writes it: one line per
 * module, "kernel/drivers/net/dummy.ko.xz: dep.ko.xz ..." (paths relative
 * to the release directory; very old depmod wrote absolute ones).
 *
 * The text file rather than modules.dep.bin or libkmod: it is what
 * modprobe itself writes next to the binary index and its format has been
 * stable for decades; parsing it needs no extra dependency, while libkmod
 * would bring its configuration, alias and blacklist semantics that a
 * lookup by exact module name does not want. It is read once per index.
 */
/*
 * A modules.dep path stays in the release's tree: relative (as depmod
 * writes it) or under @release_dir (as old depmods did), and no ".."
 * component. Anything else would let the file point the search anywhere.
 */
static bool dep_path_ok(const char *release_dir, const char *path)
{
	size_t n = strlen(release_dir);
	const char *p;

	if (path[0] == '/' && (strncmp(path, release_dir, n) || path[n] != '/'))
		return false;
	for (p = path; (p = strstr(p, "..")); p += 2)
		if ((p == path || p[-1] == '/') && (p[2] == '/' || !p[2]))
			return false;
	return true;
}

static int read_modules_dep(const char *release_dir, struct ko_place *pl)
{
	char *dep, *line = NULL, *colon;
	size_t cap = 0;
	FILE *f;
	int err = 0;

	if (asprintf(&dep, "%s/modules.dep", release_dir) < 0)
		return -ENOMEM;
	f = libsecmap_fopen_regular(dep);
	free(dep);
	if (!f)
		return 0;	/* no modules.dep (or not a file): nothing listed */
	while (!err && getline(&line, &cap, f) > 0) {
		colon = strchr(line, ':');
		if (!colon || colon == line)
			continue;
		*colon = '\0';
		if (!dep_path_ok(release_dir, line))
			continue;
		err = place_add(pl, line[0] == '/' ? NULL : release_dir, line);
	}
	free(line);
	fclose(f);
	return err;
}

static int cmp_entry_path(const void *a, const void *b)
{
	const struct ko_entry *x = a, *y = b;

	return strcmp(x->key, y->key) ?: strcmp(x->path, y->path);
}

static int cmp_entry_seq(const void *a, const void *b)
{
	const struct ko_entry *x = a, *y = b;

	return strcmp(x->key, y->key) ?: (x->seq > y->seq) - (x->seq < y->seq);
}

/* Read @pl if not yet done. 0 or -ENOMEM; a place that is not there is empty. */
static int place_load(struct ko_place *pl)
{
	struct stat st;
	int err = 0;

	if (pl->loaded)
		return 0;
	switch (pl->kind) {
	case KO_PLACE_PATH:
		if (stat(pl->root, &st))
			break;
		if (S_ISREG(st.st_mode))
			err = place_add(pl, NULL, pl->root);
		else if (S_ISDIR(st.st_mode))
			err = walk_dir(pl->root, pl);
		break;
	case KO_PLACE_TREE:
		err = walk_dir(pl->root, pl);
		break;
	case KO_PLACE_MODULES_DEP:
		err = read_modules_dep(pl->root, pl);
		break;
	}
	if (err)
		return err;
	/* A tree's files in path order; modules.dep's in the order listed. */
	if (pl->nr)
		qsort(pl->entries, pl->nr, sizeof(*pl->entries),
		      pl->kind == KO_PLACE_MODULES_DEP ? cmp_entry_seq : cmp_entry_path);
	pl->loaded = true;
	return 0;
}

/* The entries of @pl for module @key: *@first and how many. */
static size_t place_lookup(const struct ko_place *pl, const char *key, size_t *first)
{
	size_t lo = 0, hi = pl->nr, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(pl->entries[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < pl->nr && !strcmp(pl->entries[end].key, key); end++)
		;
	*first = lo;
	return end - lo;
}

static bool ko_has_build_id(const char *path, const uint8_t *id, size_t len)
{
	struct secmap_ko *ko;
	const uint8_t *kid;
	bool same;

	if (secmap_ko_open(path, &ko))
		return false;
	same = secmap_ko_build_id(ko, &kid) == len && !memcmp(kid, id, len);
	secmap_ko_close(ko);
	return same;
}

/*
 * The file of @pl for module @key, malloc()ed into *@path. In a tree with
 * several (one holding more than one kernel's modules), the first in path
 * order whose build-id is @build_id, else simply the first in path order.
 * In modules.dep, the first listed that is installed. 0, -ENOENT or -ENOMEM.
 */
static int place_find(struct ko_place *pl, const char *key, const uint8_t *build_id,
		      size_t build_id_len, char **path)
{
	size_t first, n, i, pick = 0;
	int err = place_load(pl);

	if (err)
		return err;
	n = place_lookup(pl, key, &first);
	if (!n)
		return -ENOENT;
	if (pl->kind == KO_PLACE_MODULES_DEP) {
		/* Listed but not installed (a stale modules.dep): keep looking. */
		for (pick = 0; pick < n && !is_regular(pl->entries[first + pick].path); pick++)
			;
		if (pick == n)
			return -ENOENT;
	} else if (n > 1 && build_id_len) {
		for (i = 0; i < n; i++)
			if (ko_has_build_id(pl->entries[first + i].path, build_id, build_id_len)) {
				pick = i;
				break;
			}
	}
	*path = strdup(pl->entries[first + pick].path);
	return *path ? 0 : -ENOMEM;
}

static int filter_dots(const struct dirent *de)
{
	return strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
}

/*
 * perf's cache: BUILDID_CACHE/.build-id/xx/rest links to a directory
 * holding the file as "elf" (next to "kallsyms", "probes", "debug"...);
 * older perf made the link point at the file itself.
 */
static int search_buildid_cache(const char *cache, const char *hex, char **path)
{
	struct dirent **ents = NULL;
	char *dir, *p = NULL;
	struct stat st;
	int n, i, err = -ENOENT;

	if (asprintf(&dir, "%s/.build-id/%.2s/%s", cache, hex, hex + 2) < 0)
		return -ENOMEM;
	if (stat(dir, &st))
		goto out;
	if (S_ISREG(st.st_mode)) {
		*path = dir;
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		goto out;
	if (asprintf(&p, "%s/elf", dir) < 0) {
		err = -ENOMEM;
		goto out;
	}
	if (is_regular(p)) {
		*path = p;
		p = NULL;
		err = 0;
		goto out;
	}
	/* Anything else in there that is a module (alphabetical: deterministic). */
	n = scandir(dir, &ents, filter_dots, alphasort);
	for (i = 0; i < n; i++) {
		struct secmap_ko *ko;

		free(p);
		if (asprintf(&p, "%s/%s", dir, ents[i]->d_name) < 0) {
			p = NULL;
			err = -ENOMEM;
			break;
		}
		if (err == -ENOENT && is_regular(p) && !secmap_ko_open(p, &ko)) {
			secmap_ko_close(ko);
			*path = p;
			p = NULL;
			err = 0;
		}
	}
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
out:
	free(p);
	free(dir);
	return err;
}

static int search_debug_link(const char *debug_root, const char *hex, char **path)
{
	char *p;

	if (asprintf(&p, "%s/.build-id/%.2s/%s.debug", debug_root, hex, hex + 2) < 0)
		return -ENOMEM;
	if (is_regular(p)) {
		*path = p;
		return 0;
	}
	free(p);
	return -ENOENT;
}

/* b. by build-id; a one-byte id would leave "rest" empty, so none such. */
static int search_build_id(const struct secmap_ko_index *idx, const uint8_t *build_id,
			   size_t build_id_len, char **path)
{
	char hex[SECMAP_BUILD_ID_STR_SIZE];
	int err = -ENOENT;

	if (build_id_len < 2 || (!idx->buildid_cache && !idx->debug_root))
		return -ENOENT;
	/* Longer than any id we keep: no tree can be named by it. */
	if (secmap_build_id_str(build_id, build_id_len, hex, sizeof(hex)))
		return -ENOENT;
	if (idx->buildid_cache)
		err = search_buildid_cache(idx->buildid_cache, hex, path);
	if (err == -ENOENT && idx->debug_root)
		err = search_debug_link(idx->debug_root, hex, path);
	return err;
}

static bool place(const char *root)
{
	return root && *root;
}

/* A copy of @root, or NULL for a root to skip. 0 or -ENOMEM. */
static int dup_root(const char *root, char **out)
{
	*out = NULL;
	if (!place(root))
		return 0;
	*out = strdup(root);
	return *out ? 0 : -ENOMEM;
}

static int index_add_place(struct secmap_ko_index *idx, enum ko_place_kind kind,
			   const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int index_add_place(struct secmap_ko_index *idx, enum ko_place_kind kind,
			   const char *fmt, ...)
{
	struct ko_place *pl = &idx->places[idx->nr_places];
	va_list ap;
	int n;

	memset(pl, 0, sizeof(*pl));
	pl->kind = kind;
	va_start(ap, fmt);
	n = vasprintf(&pl->root, fmt, ap);
	va_end(ap);
	if (n < 0) {
		pl->root = NULL;
		return -ENOMEM;
	}
	idx->nr_places++;
	return 0;
}

SECMAP_EXPORT void secmap_ko_index_free(struct secmap_ko_index *index)
{
	size_t i, j;

	if (!index)
		return;
	for (i = 0; i < index->nr_places; i++) {
		for (j = 0; j < index->places[i].nr; j++)
			free(index->places[i].entries[j].path);
		free(index->places[i].entries);
		free(index->places[i].root);
	}
	free(index->places);
	free(index->buildid_cache);
	free(index->debug_root);
	free(index);
}

SECMAP_EXPORT int secmap_ko_index_new(const struct secmap_ko_search *opts,
				      struct secmap_ko_index **index)
{
	const char *release, *modules_root = "/lib/modules", *debug_root = "/usr/lib/debug";
	const char *home = getenv("HOME");
	SECMAP_OPTS(secmap_ko_search, o);
	struct secmap_ko_index *idx;
	struct utsname uts;
	size_t nr_paths = 0;
	int err;

	if (!index)
		return libsecmap_err(-EINVAL);
	*index = NULL;
	if (opts) {
		err = libsecmap_struct_in(opts, SECMAP_KO_SEARCH_SZ_1_0, &o, sizeof(o));
		if (err)
			return libsecmap_err(err);
	}
	opts = &o;
	while (opts->paths && opts->paths[nr_paths])
		nr_paths++;
	if (opts->modules_root)
		modules_root = opts->modules_root;
	if (opts->debug_root)
		debug_root = opts->debug_root;
	release = opts->release;
	if (!release) {
		if (uname(&uts))
			return libsecmap_err(-errno);
		release = uts.release;
	}
	/* One component of the module trees' paths, not a way out of them. */
	if (!libsecmap_valid_release(release))
		return libsecmap_err(-EINVAL);

	idx = calloc(1, sizeof(*idx));
	if (!idx)
		return libsecmap_err(-ENOMEM);
	idx->places = calloc(nr_paths + 2, sizeof(*idx->places));
	err = idx->places ? 0 : -ENOMEM;
	/* a. what the caller named */
	for (idx->nr_paths = 0; !err && idx->nr_paths < nr_paths; idx->nr_paths++)
		err = index_add_place(idx, KO_PLACE_PATH, "%s", opts->paths[idx->nr_paths]);
	/* b. by build-id, at each lookup */
	if (!err && opts && opts->buildid_cache) {
		err = dup_root(opts->buildid_cache, &idx->buildid_cache);
	} else if (!err && place(home) && asprintf(&idx->buildid_cache, "%s/.debug", home) < 0) {
		idx->buildid_cache = NULL;
		err = -ENOMEM;
	}
	if (!err)
		err = dup_root(debug_root, &idx->debug_root);
	/* c. a debuginfo tree for this release */
	if (!err && place(debug_root))
		err = index_add_place(idx, KO_PLACE_TREE, "%s/lib/modules/%s", debug_root, release);
	/* d. what depmod indexed */
	if (!err && place(modules_root))
		err = index_add_place(idx, KO_PLACE_MODULES_DEP, "%s/%s", modules_root, release);
	if (err) {
		secmap_ko_index_free(idx);
		return libsecmap_err(err);
	}
	*index = idx;
	return 0;
}

SECMAP_EXPORT int secmap_ko_index_places(const struct secmap_ko_index *index,
					const uint8_t *build_id, size_t build_id_len,
					char **places)
{
	char hex[SECMAP_BUILD_ID_STR_SIZE], *text = NULL;
	const char *sep = "";
	size_t len, i;
	FILE *f;
	int err = 0;

	if (!places)
		return libsecmap_err(-EINVAL);
	*places = NULL;
	if (!index || (build_id_len && !build_id))
		return libsecmap_err(-EINVAL);
	f = open_memstream(&text, &len);
	if (!f)
		return libsecmap_err(-ENOMEM);
	/* In the order secmap_ko_index_find() tries them. */
	for (i = 0; i < index->nr_paths; i++, sep = ", ")
		fprintf(f, "%s%s", sep, index->places[i].root);
	/* As search_build_id() skips an id too long to name a file, so does this. */
	if (build_id_len >= 2 && (index->buildid_cache || index->debug_root) &&
	    !secmap_build_id_str(build_id, build_id_len, hex, sizeof(hex))) {
		if (index->buildid_cache) {
			fprintf(f, "%s%s/.build-id/%.2s/%s", sep, index->buildid_cache, hex, hex + 2);
			sep = ", ";
		}
		if (index->debug_root) {
			fprintf(f, "%s%s/.build-id/%.2s/%s.debug", sep, index->debug_root, hex,
				hex + 2);
			sep = ", ";
		}
	}
	for (i = index->nr_paths; i < index->nr_places; i++, sep = ", ")
		fprintf(f, "%s%s%s", sep, index->places[i].root,
			index->places[i].kind == KO_PLACE_MODULES_DEP ? "/modules.dep" : "");
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(text);
		return libsecmap_err(err);
	}
	*places = text;
	return 0;
}

SECMAP_EXPORT int secmap_ko_index_find(struct secmap_ko_index *index, const char *name,
				       const uint8_t *build_id, size_t build_id_len,
				       char **path)
{
	size_t len, i;
	char *key;
	int err = -ENOENT;

	if (!path)
		return libsecmap_err(-EINVAL);
	*path = NULL;
	if (!index || !name || !*name || strchr(name, '/') || (build_id_len && !build_id))
		return libsecmap_err(-EINVAL);
	len = strlen(name);
	key = malloc(len + 1);
	if (!key)
		return libsecmap_err(-ENOMEM);
	name_key(key, name, len);

	for (i = 0; err == -ENOENT && i < index->nr_paths; i++)
		err = place_find(&index->places[i], key, build_id, build_id_len, path);
	if (err == -ENOENT)
		err = search_build_id(index, build_id, build_id_len, path);
	for (i = index->nr_paths; err == -ENOENT && i < index->nr_places; i++)
		err = place_find(&index->places[i], key, build_id, build_id_len, path);
	free(key);
	return err ? libsecmap_err(err) : 0;
}

SECMAP_EXPORT int secmap_ko_find(const struct secmap_ko_search *opts, const char *name,
				 const uint8_t *build_id, size_t build_id_len, char **path)
{
	struct secmap_ko_index *index;
	int err;

	if (!path)
		return libsecmap_err(-EINVAL);
	*path = NULL;
	if (!name || !*name || strchr(name, '/') || (build_id_len && !build_id))
		return libsecmap_err(-EINVAL);
	err = secmap_ko_index_new(opts, &index);
	if (err)
		return err;
	err = secmap_ko_index_find(index, name, build_id, build_id_len, path);
	secmap_ko_index_free(index);
	return err;
}
