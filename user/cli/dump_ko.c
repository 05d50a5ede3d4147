// SPDX-License-Identifier: GPL-2.0
/*
 * secmap dump's .ko enrichment: find each loaded module's file (or its
 * entry in the .ko cache), refuse one of another build-id, and keep what
 * it says of each section (size, file offset, flags, symbols).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_ko.h"
#include "secmap_cli.h"

void dump_ko_free(struct dump_ko *kos, size_t nr)
{
	size_t i;

	if (!kos)
		return;
	for (i = 0; i < nr; i++) {
		free(kos[i].path);
		free(kos[i].secs);
	}
	free(kos);
}

int dump_ko_check(const struct secmap_module *mod, const char *path,
		  const struct secmap_ko *ko, bool force, char **msg)
{
	const uint8_t *kernel_id, *file_id;
	size_t kernel_len = secmap_module_build_id(mod, &kernel_id);
	size_t file_len = secmap_ko_build_id(ko, &file_id);
	char *file_hex, *kernel_hex;

	*msg = NULL;
	/* Without a build-id on either side there is nothing to compare. */
	if (!kernel_len || !file_len ||
	    (kernel_len == file_len && !memcmp(kernel_id, file_id, file_len)))
		return SECMAP_EXIT_OK;
	file_hex = build_id_text(file_id, file_len);
	kernel_hex = build_id_text(kernel_id, kernel_len);
	if (file_hex && kernel_hex &&
	    asprintf(msg, "%s does not match the loaded module %s (build-id %s vs %s); %s",
		     path, secmap_module_name(mod), file_hex, kernel_hex,
		     force ? "using it anyway (--force)" : "use --force to use it anyway") < 0)
		*msg = NULL;
	free(file_hex);
	free(kernel_hex);
	return force ? SECMAP_EXIT_OK : SECMAP_EXIT_KO_MISMATCH;
}

char *dump_ko_searched(const struct secmap_ko_search *s, const struct secmap_module *mod)
{
	struct secmap_ko_index *index;
	const uint8_t *id;
	size_t id_len = secmap_module_build_id(mod, &id);
	char *text = NULL;

	/* The library says where it looks: an index only notes the places until used. */
	if (!secmap_ko_index_new(s, &index))
		secmap_ko_index_places(index, id, id_len, &text);
	secmap_ko_index_free(index);
	return text;
}

static const char *ko_strerror(int err)
{
	switch (-err) {
	case EINVAL:
		return "not a 64-bit relocatable ELF (a .ko), or corrupt or truncated";
	case ENOTSUP:
		return "compressed in a format secmap does not read (xz, zstd and gzip only)";
	case EFBIG:
		return "larger than any module should be";
	default:
		return strerror(-err);
	}
}

int dump_ko_fill(const struct secmap_module *mod, const struct secmap_ko *ko, struct dump_ko *out)
{
	size_t i, n = secmap_module_section_count(mod);

	out->secs = calloc(n ? n : 1, sizeof(*out->secs));
	if (!out->secs)
		return -ENOMEM;
	/* By name, .data..percpu included: the file has it, SHF_ALLOC and all. */
	for (i = 0; i < n; i++) {
		out->secs[i].s.sz = sizeof(out->secs[i].s);
		out->secs[i].found = !secmap_ko_section(ko, secmap_section_name(
							secmap_module_section(mod, i)),
							&out->secs[i].s);
	}
	return 0;
}

/* Whether @ko's build-id is @id. */
static bool file_has_id(const struct secmap_ko *ko, const uint8_t *id, size_t id_len)
{
	const uint8_t *file_id;

	return secmap_ko_build_id(ko, &file_id) == id_len && !memcmp(file_id, id, id_len);
}

/* Names listed in the "no .ko found" notice before it says "...". */
#define DUMP_KO_NOTICE_NAMES 10

/*
 * The .ko found at @path (taken: freed, or kept in @out) for @mod: read,
 * checked against it, and its table into @out and the cache. An exit code.
 */
static int read_found(const struct secmap_module *mod, char *path, bool force, FILE *diag,
		      const char *cache_dir, struct dump_ko *out)
{
	struct secmap_ko *ko = NULL;
	const uint8_t *id;
	size_t id_len = secmap_module_build_id(mod, &id);
	char *msg = NULL;
	bool exact;
	int ret, err;

	/* Found but unreadable is an error: the user would miss it in a notice. */
	err = secmap_ko_open(path, &ko);
	if (err) {
		p_err("cannot read %s: %s", path, ko_strerror(err));
		free(path);
		/* Not exit_code_from_err() for all: -ENOENT there means "no secmap". */
		return err == -EACCES || err == -EPERM ? exit_code_from_err(err) :
		       SECMAP_EXIT_FAILURE;
	}
	ret = dump_ko_check(mod, path, ko, force, &msg);
	if (ret)
		p_err("%s", msg ? msg : strerror(ENOMEM));
	else if (msg)
		fprintf(diag, "Warning: %s\n", msg);
	/*
	 * Cached only under a build-id both the file and the kernel have:
	 * dump_ko_check() also accepts a file without one.
	 */
	exact = !ret && !msg && id_len && file_has_id(ko, id, id_len);
	free(msg);
	if (!ret && dump_ko_fill(mod, ko, out)) {
		p_err("%s", strerror(ENOMEM));
		ret = SECMAP_EXIT_FAILURE;
	}
	secmap_ko_close(ko);
	if (ret) {
		free(path);
		return ret;
	}
	out->path = path;
	/* Best effort: a dump that cannot write its cache still dumps. */
	if (exact && cache_dir)
		ko_cache_store(cache_dir, mod, out);
	return SECMAP_EXIT_OK;
}

static void notice_missing(FILE *diag, const struct secmap_module *const *missing, size_t nr)
{
	size_t i;

	fprintf(diag, "Notice: no .ko found for %zu module%s: ", nr, nr == 1 ? "" : "s");
	for (i = 0; i < nr && i < DUMP_KO_NOTICE_NAMES; i++)
		fprintf(diag, "%s%s", i ? ", " : "", text_safe(secmap_module_name(missing[i])));
	fprintf(diag, "%s\n", nr > DUMP_KO_NOTICE_NAMES ? "..." : "");
}

int dump_ko_resolve(const struct secmap_module *const *mods, size_t nr_mods,
		    const struct secmap_ko_search *search, bool force, bool named,
		    const char *cache_dir, FILE *diag, struct dump_ko **kosp)
{
	struct dump_ko *kos = calloc(nr_mods ? nr_mods : 1, sizeof(*kos));
	const struct secmap_module *missing[DUMP_KO_NOTICE_NAMES];
	struct secmap_ko_index *index = NULL;
	struct ko_cache_listing *listing = NULL;
	size_t i, nr_missing = 0;
	int ret = SECMAP_EXIT_OK, err;
	/* Files the user named are shown as named, not as a cache recalls them. */
	bool read_cache = cache_dir && !(search->paths && search->paths[0]);

	*kosp = NULL;
	if (!kos) {
		p_err("%s", strerror(ENOMEM));
		return SECMAP_EXIT_FAILURE;
	}
	if (read_cache)
		listing = ko_cache_list(cache_dir);
	for (i = 0; i < nr_mods; i++) {
		const struct secmap_module *mod = mods[i];
		const char *name = secmap_module_name(mod);
		const uint8_t *id;
		size_t id_len = secmap_module_build_id(mod, &id);
		char *path = NULL;

		if (read_cache && ko_cache_listed(listing, mod)) {
			err = ko_cache_load(cache_dir, mod, &kos[i]);
			if (!err)
				continue;
			if (err != -ENOENT) {
				p_err("%s", strerror(-err));
				ret = SECMAP_EXIT_FAILURE;
				break;
			}
		}
		/* One index for all misses: each place is read once, not once per module. */
		if (!index) {
			err = secmap_ko_index_new(search, &index);
			if (err) {
				p_err("looking for .ko files: %s", strerror(-err));
				ret = SECMAP_EXIT_FAILURE;
				break;
			}
		}
		err = secmap_ko_index_find(index, name, id, id_len, &path);
		if (err == -ENOENT && named) {
			char *where = NULL;

			secmap_ko_index_places(index, id, id_len, &where);

			p_err("no .ko found for module %s (searched %s)", name,
			      where ? where : "?");
			free(where);
			ret = SECMAP_EXIT_NO_KO;
			break;
		}
		if (err == -ENOENT) {
			if (nr_missing < DUMP_KO_NOTICE_NAMES)
				missing[nr_missing] = mod;
			nr_missing++;
			continue;
		}
		if (err) {
			p_err("looking for the .ko of %s: %s", name, strerror(-err));
			ret = SECMAP_EXIT_FAILURE;
			break;
		}
		ret = read_found(mod, path, force, diag, cache_dir, &kos[i]);
		if (ret)
			break;
	}
	ko_cache_listing_free(listing);
	secmap_ko_index_free(index);
	if (ret) {
		dump_ko_free(kos, nr_mods);
		return ret;
	}
	if (nr_missing)
		notice_missing(diag, missing, nr_missing);
	*kosp = kos;
	return SECMAP_EXIT_OK;
}
