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
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

static bool name_char_eq(char a, char b)
{
	return a == b || ((a == '-' || a == '_') && (b == '-' || b == '_'));
}

/* Does the file name @base (no directory) name module @name? */
static bool ko_name_matches(const char *base, const char *name)
{
	size_t blen = strlen(base), nlen = strlen(name), i, k;

	for (k = 0; k < sizeof(ko_suffixes) / sizeof(ko_suffixes[0]); k++) {
		size_t slen = strlen(ko_suffixes[k]);

		if (blen != nlen + slen || strcmp(base + nlen, ko_suffixes[k]))
			continue;
		for (i = 0; i < nlen && name_char_eq(base[i], name[i]); i++)
			;
		if (i == nlen)
			return true;
	}
	return false;
}

static const char *path_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool is_regular(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* Matching files found in one place; which one wins is decided at the end. */
struct ko_candidates {
	char **paths;
	size_t nr;
	size_t cap;
};

static int cand_add(struct ko_candidates *c, const char *dir, const char *base)
{
	char *p;

	if (c->nr == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4;
		char **n = realloc(c->paths, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->paths = n;
		c->cap = cap;
	}
	if (asprintf(&p, "%s/%s", dir, base) < 0)
		return -ENOMEM;
	c->paths[c->nr++] = p;
	return 0;
}

static void cand_free(struct ko_candidates *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++)
		free(c->paths[i]);
	free(c->paths);
	c->paths = NULL;
	c->nr = c->cap = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
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
 * Take the winner out of @c into *@path: with several (a tree holding
 * more than one kernel's modules), the first in path order whose build-id
 * is @build_id, else simply the first in path order. 0, or -ENOENT if
 * there are none.
 */
static int cand_pick(struct ko_candidates *c, const uint8_t *build_id, size_t build_id_len,
		     char **path)
{
	size_t i, pick = 0;

	if (!c->nr)
		return -ENOENT;
	qsort(c->paths, c->nr, sizeof(*c->paths), cmp_str);
	if (c->nr > 1 && build_id_len) {
		for (i = 0; i < c->nr; i++)
			if (ko_has_build_id(c->paths[i], build_id, build_id_len)) {
				pick = i;
				break;
			}
	}
	*path = c->paths[pick];
	c->paths[pick] = NULL;
	return 0;
}

/*
 * Collect the files under @dirfd (named @dir) that name @name. Not nftw():
 * it stat()s every entry and takes no context pointer; readdir's d_type
 * lets a walk of a kernel build tree (tens of thousands of files) stat
 * almost nothing. Symlinked directories are not followed (no loops, and
 * no wandering from /lib/modules/R/build into the kernel sources);
 * symlinked files are, when they name the module. Unreadable directories
 * are skipped, as find(1) does.
 */
static int walk(int dirfd, const char *dir, const char *name, int depth,
		struct ko_candidates *c)
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
			err = walk(fd, sub, name, depth + 1, c);
			free(sub);
			continue;
		}
		if ((type != DT_REG && type != DT_LNK) || !ko_name_matches(de->d_name, name))
			continue;
		/* A link must end at a regular file; stat() follows it. */
		if (type == DT_LNK &&
		    (fstatat(dirfd, de->d_name, &st, 0) || !S_ISREG(st.st_mode)))
			continue;
		err = cand_add(c, dir, de->d_name);
	}
	closedir(d);
	return err;
}

static int walk_dir(const char *dir, const char *name, struct ko_candidates *c)
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
	err = walk(fd, root, name, 0, c);
	free(root);
	return err;
}

/* One opts->paths entry: a module file, or a directory to search. */
static int search_entry(const char *entry, const char *name, const uint8_t *build_id,
			size_t build_id_len, char **path)
{
	struct ko_candidates c = { 0 };
	struct stat st;
	int err;

	if (stat(entry, &st))
		return -ENOENT;
	if (S_ISREG(st.st_mode)) {
		if (!ko_name_matches(path_base(entry), name))
			return -ENOENT;
		*path = strdup(entry);
		return *path ? 0 : -ENOMEM;
	}
	if (!S_ISDIR(st.st_mode))
		return -ENOENT;
	err = walk_dir(entry, name, &c);
	if (!err)
		err = cand_pick(&c, build_id, build_id_len, path);
	cand_free(&c);
	return err;
}

static int search_tree(const char *dir, const char *name, const uint8_t *build_id,
		       size_t build_id_len, char **path)
{
	struct ko_candidates c = { 0 };
	int err = walk_dir(dir, name, &c);

	if (!err)
		err = cand_pick(&c, build_id, build_id_len, path);
	cand_free(&c);
	return err;
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

/*
 * MODULES_ROOT/RELEASE/modules.dep, as depmod writes it: one line per
 * module, "kernel/drivers/net/dummy.ko.xz: dep.ko.xz ..." (paths relative
 * to the release directory; very old depmod wrote absolute ones).
 *
 * The text file rather than modules.dep.bin or libkmod: it is what
 * modprobe itself writes next to the binary index and its format has been
 * stable for decades; parsing it needs no extra dependency, while libkmod
 * would bring its configuration, alias and blacklist semantics that a
 * lookup by exact module name does not want. One linear read per module
 * is cheap next to decompressing the module found.
 */
static int search_modules_dep(const char *release_dir, const char *name, char **path)
{
	char *dep, *line = NULL, *colon, *p;
	size_t cap = 0;
	ssize_t len;
	FILE *f;
	int err = -ENOENT;

	if (asprintf(&dep, "%s/modules.dep", release_dir) < 0)
		return -ENOMEM;
	f = fopen(dep, "re");
	free(dep);
	if (!f)
		return -ENOENT;
	while (err == -ENOENT && (len = getline(&line, &cap, f)) > 0) {
		colon = strchr(line, ':');
		if (!colon || colon == line)
			continue;
		*colon = '\0';
		if (!ko_name_matches(path_base(line), name))
			continue;
		if (line[0] == '/')
			p = strdup(line);
		else if (asprintf(&p, "%s/%s", release_dir, line) < 0)
			p = NULL;
		if (!p) {
			err = -ENOMEM;
			break;
		}
		/* Listed but not installed (a stale modules.dep): keep looking. */
		if (is_regular(p)) {
			*path = p;
			err = 0;
		} else {
			free(p);
		}
	}
	free(line);
	fclose(f);
	return err;
}

static bool place(const char *root)
{
	return root && *root;
}

SECMAP_EXPORT int secmap_ko_find(const struct secmap_ko_search *opts, const char *name,
				 const uint8_t *build_id, size_t build_id_len, char **path)
{
	const char *release, *modules_root = "/lib/modules", *debug_root = "/usr/lib/debug";
	char *buildid_cache = NULL, *dir = NULL, *hex = NULL;
	struct utsname uts;
	size_t i;
	int err;

	if (!path)
		return libsecmap_err(-EINVAL);
	*path = NULL;
	if (!name || !*name || strchr(name, '/') || (build_id_len && !build_id))
		return libsecmap_err(-EINVAL);

	/* a. what the caller named */
	for (i = 0; opts && opts->paths && opts->paths[i]; i++) {
		err = search_entry(opts->paths[i], name, build_id, build_id_len, path);
		if (err != -ENOENT)
			return err ? libsecmap_err(err) : 0;
	}

	if (opts && opts->modules_root)
		modules_root = opts->modules_root;
	if (opts && opts->debug_root)
		debug_root = opts->debug_root;
	if (opts && opts->buildid_cache) {
		buildid_cache = strdup(opts->buildid_cache);
		if (!buildid_cache)
			return libsecmap_err(-ENOMEM);
	} else if (getenv("HOME") && *getenv("HOME")) {
		if (asprintf(&buildid_cache, "%s/.debug", getenv("HOME")) < 0)
			return libsecmap_err(-ENOMEM);
	}
	release = opts ? opts->release : NULL;
	if (!release) {
		if (uname(&uts)) {
			free(buildid_cache);
			return libsecmap_err(-errno);
		}
		release = uts.release;
	}

	err = -ENOENT;
	/* b. by build-id; a one-byte id would leave "rest" empty, so none such */
	if (build_id_len >= 2) {
		static const char digits[] = "0123456789abcdef";

		hex = malloc(2 * build_id_len + 1);
		if (!hex) {
			err = -ENOMEM;
			goto out;
		}
		for (i = 0; i < build_id_len; i++) {
			hex[2 * i] = digits[build_id[i] >> 4];
			hex[2 * i + 1] = digits[build_id[i] & 0xf];
		}
		hex[2 * build_id_len] = '\0';
		if (place(buildid_cache))
			err = search_buildid_cache(buildid_cache, hex, path);
		if (err == -ENOENT && place(debug_root))
			err = search_debug_link(debug_root, hex, path);
		if (err != -ENOENT)
			goto out;
	}

	/* c. a debuginfo tree for this release */
	if (place(debug_root)) {
		if (asprintf(&dir, "%s/lib/modules/%s", debug_root, release) < 0) {
			dir = NULL;
			err = -ENOMEM;
			goto out;
		}
		err = search_tree(dir, name, build_id, build_id_len, path);
		free(dir);
		dir = NULL;
		if (err != -ENOENT)
			goto out;
	}

	/* d. what depmod indexed */
	if (place(modules_root)) {
		if (asprintf(&dir, "%s/%s", modules_root, release) < 0) {
			dir = NULL;
			err = -ENOMEM;
			goto out;
		}
		err = search_modules_dep(dir, name, path);
	}
out:
	free(dir);
	free(hex);
	free(buildid_cache);
	return err ? libsecmap_err(err) : 0;
}
