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

int dump_ko_check(const struct secmap_module *mod, const struct secmap_ko_table *table,
		  bool force, char **msg)
{
	const uint8_t *kernel_id, *file_id;
	size_t kernel_len = secmap_module_build_id(mod, &kernel_id);
	size_t file_len = secmap_ko_table_build_id(table, &file_id);
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
		     secmap_ko_table_path(table), secmap_module_name(mod), file_hex, kernel_hex,
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

/* Names listed in the "no .ko found" notice before it says "...". */
#define DUMP_KO_NOTICE_NAMES 10

/* What @table says of each section of @mod, into @out; 0 or -ENOMEM. */
static int fill(const struct secmap_module *mod, const struct secmap_ko_table *table,
		struct dump_ko *out)
{
	size_t i, n = secmap_module_section_count(mod);

	out->path = strdup(secmap_ko_table_path(table));
	out->secs = calloc(n ? n : 1, sizeof(*out->secs));
	if (!out->path || !out->secs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		out->secs[i].s.sz = sizeof(out->secs[i].s);
		out->secs[i].found = !secmap_ko_table_section(table, secmap_section_name(
								secmap_module_section(mod, i)),
							      &out->secs[i].s);
	}
	return 0;
}

/*
 * The table found for @mod (@err: what secmap_ko_tables_get() said of it):
 * checked against the module and copied into @out. An exit code.
 */
static int take_found(const struct secmap_module *mod, const struct secmap_ko_table *table,
		      int err, bool force, FILE *diag, struct dump_ko *out)
{
	char *msg = NULL;
	int ret;

	/* Found but unreadable is an error: the user would miss it in a notice. */
	if (err && err != -ESTALE) {
		p_err("cannot read %s: %s", secmap_ko_table_path(table), ko_strerror(err));
		/* Not exit_code_from_err() for all: -ENOENT there means "no secmap". */
		return err == -EACCES || err == -EPERM ? exit_code_from_err(err) :
		       SECMAP_EXIT_FAILURE;
	}
	ret = dump_ko_check(mod, table, force, &msg);
	if (ret)
		p_err("%s", msg ? msg : strerror(ENOMEM));
	else if (msg)
		fprintf(diag, "Warning: %s\n", msg);
	free(msg);
	if (!ret && fill(mod, table, out)) {
		p_err("%s", strerror(ENOMEM));
		ret = SECMAP_EXIT_FAILURE;
	}
	return ret;
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
	SECMAP_OPTS(secmap_ko_tables_opts, opts, .search = search, .cache_dir = cache_dir);
	struct secmap_ko_tables *tables = NULL;
	size_t i, nr_missing = 0;
	int ret = SECMAP_EXIT_OK, err;

	*kosp = NULL;
	if (!kos || secmap_ko_tables_new(&opts, &tables)) {
		p_err("%s", strerror(ENOMEM));
		free(kos);
		return SECMAP_EXIT_FAILURE;
	}
	for (i = 0; i < nr_mods && !ret; i++) {
		const struct secmap_module *mod = mods[i];
		const struct secmap_ko_table *table;

		err = secmap_ko_tables_get(tables, mod, &table);
		if (table) {
			ret = take_found(mod, table, err, force, diag, &kos[i]);
		} else if (err == -ENOENT && named) {
			char *where = dump_ko_searched(search, mod);

			p_err("no .ko found for module %s (searched %s)", secmap_module_name(mod),
			      where ? where : "?");
			free(where);
			ret = SECMAP_EXIT_NO_KO;
		} else if (err == -ENOENT) {
			if (nr_missing < DUMP_KO_NOTICE_NAMES)
				missing[nr_missing] = mod;
			nr_missing++;
		} else {
			p_err("looking for the .ko of %s: %s", secmap_module_name(mod),
			      strerror(-err));
			ret = SECMAP_EXIT_FAILURE;
		}
	}
	secmap_ko_tables_free(tables);
	if (ret) {
		dump_ko_free(kos, nr_mods);
		return ret;
	}
	if (nr_missing)
		notice_missing(diag, missing, nr_missing);
	*kosp = kos;
	return SECMAP_EXIT_OK;
}
