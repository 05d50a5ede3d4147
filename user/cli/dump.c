// SPDX-License-Identifier: GPL-2.0
/* secmap dump: print where each section of each loaded module was placed. */
#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include <json-c/json.h>

#include "dump_ko.h"
#include "json_out.h"
#include "secmap_cli.h"

static void dump_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s dump [-j|--json] [-p|--pretty] [--source netlink|sysfs|auto]\n"
		"                 [MODULE...]\n"
		"\n"
		"Show the address the kernel loaded each ELF section of each module at,\n"
		"or only of the MODULEs named ('-' and '_' in names are interchangeable).\n"
		"\n"
		"Options:\n"
		"  -j, --json    JSON output\n"
		"  -p, --pretty  pretty-printed JSON output (implies --json)\n"
		"  --source SRC  where to read from: netlink (the secmap module), sysfs\n"
		"                (/proc/modules and /sys/module: no regions), or auto\n"
		"                (netlink, sysfs if secmap is not loaded; the default)\n"
		"  -h, --help    show this help\n"
		"\n"
		"Section sizes, file offsets (pgoff) and symbol counts come from each\n"
		"module's .ko, looked for in the --ko-path entries, by build-id in the\n"
		"perf cache and debuginfo, in the debuginfo tree, then via modules.dep:\n"
		"  --ko-path PATH        a .ko file, or a directory to search (repeatable)\n"
		"  --modules-root DIR    instead of /lib/modules\n"
		"  --debug-root DIR      instead of /usr/lib/debug\n"
		"  --buildid-cache DIR   instead of ~/.debug (perf's build-id cache)\n"
		"  --release R           kernel release to look for, instead of uname -r\n"
		"  --force               use a .ko whose build-id is not the loaded module's\n"
		"  --no-ko               do not look for .ko files\n"
		"  --no-cache            neither read nor fill the cache of what the .ko\n"
		"                        files hold, kept per build-id in\n"
		"                        $XDG_CACHE_HOME/secmap/ko (~/.cache/secmap/ko)\n"
		"\n"
		"Exit status: 0 ok, 1 failure, 2 usage, 3 secmap not loaded, 4 permission\n"
		"denied, 5 a MODULE is not loaded, 6 a .ko's build-id differs from the\n"
		"loaded module's (see --force), 7 no .ko found for a MODULE named.\n",
		bin_name);
}

/* --source: the "source" reported in JSON is the one actually used. */
enum { OPT_SOURCE = 512 };
enum dump_source { DUMP_SOURCE_AUTO, DUMP_SOURCE_NETLINK, DUMP_SOURCE_SYSFS };
static const char *dump_source_used = "netlink";

static int parse_source(const char *arg, enum dump_source *src)
{
	if (!strcmp(arg, "auto"))
		*src = DUMP_SOURCE_AUTO;
	else if (!strcmp(arg, "netlink"))
		*src = DUMP_SOURCE_NETLINK;
	else if (!strcmp(arg, "sysfs"))
		*src = DUMP_SOURCE_SYSFS;
	else
		return -EINVAL;
	return 0;
}

static int snapshot_sysfs(struct secmap_snapshot **snap)
{
	int err = secmap_snapshot_from_sysfs(NULL, snap);

	if (!err) {
		dump_source_used = "sysfs";
		return SECMAP_EXIT_OK;
	}
	if (err == -EPERM || err == -EACCES) {
		p_err("cannot read module section addresses from /sys/module: "
		      "hidden or denied (needs CAP_SYSLOG, see kptr_restrict)");
		return SECMAP_EXIT_PERM;
	}
	p_err("cannot read /proc/modules and /sys/module: %s", strerror(-err));
	return SECMAP_EXIT_FAILURE;
}

/* 0 with *@snap, or the exit code after reporting why not. */
static int dump_snapshot(enum dump_source src, struct secmap_snapshot **snap)
{
	struct secmap_client *client = NULL;
	int err;

	if (src == DUMP_SOURCE_SYSFS)
		return snapshot_sysfs(snap);
	err = secmap_client_open(&client);
	if (err == -ENOENT && src == DUMP_SOURCE_AUTO) {
		fprintf(stderr, "Notice: secmap module not loaded; reading /proc/modules and "
			"/sys/module (no regions, no events)\n");
		return snapshot_sysfs(snap);
	}
	if (err) {
		p_err("%s", client_strerror(err));
		return exit_code_from_err(err);
	}
	err = secmap_client_dump(client, snap);
	secmap_client_close(client);
	if (err == -ENOENT && src == DUMP_SOURCE_AUTO) {
		fprintf(stderr, "Notice: secmap module unloaded during the dump; reading "
			"/proc/modules and /sys/module (no regions, no events)\n");
		return snapshot_sysfs(snap);
	}
	if (err) {
		p_err("dump failed: %s", client_strerror(err));
		return exit_code_from_err(err);
	}
	dump_source_used = "netlink";
	return SECMAP_EXIT_OK;
}

int dump_select(const struct secmap_snapshot *snap, char *const *names, size_t nr_names,
		const struct secmap_module ***mods, size_t *nr_mods, const char **missing)
{
	size_t total = secmap_snapshot_module_count(snap), i, j, n = 0;
	const struct secmap_module **picked, **out;

	*mods = NULL;
	*nr_mods = 0;
	out = calloc(total ? total : 1, sizeof(*out));
	picked = calloc(nr_names ? nr_names : 1, sizeof(*picked));
	if (!out || !picked) {
		free(out);
		free(picked);
		return -ENOMEM;
	}
	for (j = 0; j < nr_names; j++) {
		picked[j] = secmap_snapshot_find(snap, names[j]);
		if (!picked[j]) {
			*missing = names[j];
			free(out);
			free(picked);
			return -ENOENT;
		}
	}
	/* Walk the snapshot rather than @names: output follows the kernel's order. */
	for (i = 0; i < total; i++) {
		const struct secmap_module *m = secmap_snapshot_module(snap, i);

		for (j = 0; j < nr_names && picked[j] != m; j++)
			;
		if (!nr_names || j < nr_names)
			out[n++] = m;
	}
	free(picked);
	*mods = out;
	*nr_mods = n;
	return 0;
}

/* json-c leaves @val with the caller when adding fails; NULL @val means it was never made. */
int obj_add(struct json_object *obj, const char *key, struct json_object *val)
{
	if (!val)
		return -ENOMEM;
	if (json_object_object_add(obj, key, val)) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

/* JSON null, for what the kernel did not say (or secmap does not know yet). */
int obj_add_null(struct json_object *obj, const char *key)
{
	return json_object_object_add(obj, key, NULL) ? -ENOMEM : 0;
}

/* "init", "init,freed" or "" for SECMAP_SECTION_F_* @flags. */
static const char *section_flags_str(uint32_t flags)
{
	if (!(flags & SECMAP_SECTION_F_INIT))
		return "";
	return flags & SECMAP_SECTION_F_FREED ? "init,freed" : "init";
}

/* Lowercase hex of the module's build-id, malloc()ed; NULL if none (or no memory). */
static char *build_id_hex(const struct secmap_module *mod)
{
	const uint8_t *id;
	size_t len = secmap_module_build_id(mod, &id);

	return len ? bytes_hex(id, len) : NULL;
}

/* A number the .ko gave, or null when it did not (or was not looked at). */
static void out_u64_or_null(struct json_out *o, const char *key, bool known, uint64_t val)
{
	if (known)
		json_out_u64(o, key, val);
	else
		json_out_null(o, key);
}

/*
 * @ko: the module's .ko, whose section @index @sec is; NULL when dump did
 * not look (monitor): then "exec" and "symbols" are left out, and "size"
 * and "pgoff" are null as they have always been.
 */
static void section_out(struct json_out *o, const struct secmap_section *sec,
			const struct dump_ko *ko, size_t index)
{
	uint32_t flags = secmap_section_flags(sec);
	int region = secmap_section_region(sec);
	const struct dump_ko_sec *ks = ko && ko->secs && ko->secs[index].found ?
				       &ko->secs[index] : NULL;

	json_out_object_begin(o, NULL);
	json_out_str(o, "name", secmap_section_name(sec));
	json_out_hex(o, "addr", secmap_section_addr(sec));
	out_u64_or_null(o, "size", ks, ks ? ks->s.size : 0);
	out_u64_or_null(o, "pgoff", ks, ks ? ks->s.offset : 0);
	if (ko) {
		if (ks)
			json_out_bool(o, "exec", ks->s.flags & SHF_EXECINSTR);
		else
			json_out_null(o, "exec");
		out_u64_or_null(o, "symbols", ks, ks ? ks->s.nr_symbols : 0);
	}
	json_out_bool(o, "init", flags & SECMAP_SECTION_F_INIT);
	json_out_bool(o, "freed", flags & SECMAP_SECTION_F_FREED);
	json_out_str(o, "region", region < 0 ? NULL : secmap_region_type_name(region));
	json_out_object_end(o);
}

static void region_out(struct json_out *o, const struct secmap_region *reg)
{
	json_out_object_begin(o, NULL);
	json_out_str(o, "type", secmap_region_type_name(secmap_region_type(reg)));
	json_out_hex(o, "base", secmap_region_base(reg));
	json_out_u64(o, "size", secmap_region_size(reg));
	json_out_object_end(o);
}

/* One module, as dump and monitor show it; see dump_module_json(). */
void dump_module_out(struct json_out *o, const char *key, const struct secmap_module *mod,
		     const struct dump_ko *ko)
{
	char *build_id = build_id_hex(mod);
	size_t i, n;

	if (!build_id && secmap_module_build_id(mod, NULL))
		json_out_fail(o, -ENOMEM);
	json_out_object_begin(o, key);
	json_out_str(o, "name", secmap_module_name(mod));
	json_out_str(o, "state", secmap_module_state_name(secmap_module_state(mod)));
	json_out_u64(o, "taint", secmap_module_taint(mod));
	json_out_str(o, "build_id", build_id);
	free(build_id);
	if (ko)
		json_out_str(o, "path", ko->path);
	json_out_array_begin(o, "regions");
	n = secmap_module_region_count(mod);
	for (i = 0; i < n; i++)
		region_out(o, secmap_module_region(mod, i));
	json_out_array_end(o);
	json_out_array_begin(o, "sections");
	n = secmap_module_section_count(mod);
	for (i = 0; i < n; i++)
		section_out(o, secmap_module_section(mod, i), ko, i);
	json_out_array_end(o);
	json_out_object_end(o);
}

/* {"source": ..., "modules": [...]} */
static void dump_out(struct json_out *o, const struct secmap_module *const *mods, size_t nr_mods,
		     const struct dump_ko *kos)
{
	size_t i;

	json_out_object_begin(o, NULL);
	/* Where the data came from: "netlink" or "sysfs" (dump --source). */
	json_out_str(o, "source", dump_source_used);
	json_out_array_begin(o, "modules");
	for (i = 0; i < nr_mods; i++)
		dump_module_out(o, NULL, mods[i], kos ? &kos[i] : NULL);
	json_out_array_end(o);
	json_out_object_end(o);
}

struct json_object *dump_module_json(const struct secmap_module *mod)
{
	struct json_out *o = json_out_tree();
	struct json_object *root;

	if (o)
		dump_module_out(o, NULL, mod, NULL);
	return json_out_finish(o, &root) ? NULL : root;
}

struct json_object *dump_build_json(const struct secmap_module *const *mods, size_t nr_mods)
{
	return dump_build_json_ko(mods, nr_mods, NULL);
}

struct json_object *dump_build_json_ko(const struct secmap_module *const *mods, size_t nr_mods,
				       const struct dump_ko *kos)
{
	struct json_out *o = json_out_tree();
	struct json_object *root;

	if (o)
		dump_out(o, mods, nr_mods, kos);
	return json_out_finish(o, &root) ? NULL : root;
}

int dump_print_json(FILE *f, const struct secmap_module *const *mods, size_t nr_mods)
{
	return dump_print_json_ko(f, mods, nr_mods, NULL);
}

/*
 * Compact output is streamed: at 1000 modules, building the json-c tree
 * first took most of the command's time (see json_out.c). --pretty
 * builds the tree and lets json-c lay it out.
 */
int dump_print_json_ko(FILE *f, const struct secmap_module *const *mods, size_t nr_mods,
		       const struct dump_ko *kos)
{
	struct json_object *root;
	struct json_out *o;
	int err;

	if (!pretty_output) {
		o = json_out_stream(f);
		if (o)
			dump_out(o, mods, nr_mods, kos);
		return json_out_finish(o, NULL);
	}
	root = dump_build_json_ko(mods, nr_mods, kos);
	if (!root)
		return -ENOMEM;
	err = print_json(f, root);
	json_object_put(root);
	return err;
}

/* "dummy  live  taint 0x1000  build-id 3f2a...  file /lib/modules/..." */
static void print_module_line(FILE *f, const struct secmap_module *mod, const char *path)
{
	const char *state = secmap_module_state_name(secmap_module_state(mod));
	char *build_id = build_id_hex(mod);

	fprintf(f, "%s  %s", text_safe(secmap_module_name(mod)), state ? state : "-");
	if (secmap_module_taint(mod))
		fprintf(f, "  taint 0x%" PRIx64, secmap_module_taint(mod));
	if (build_id)
		fprintf(f, "  build-id %s", build_id);
	if (path)
		fprintf(f, "  file %s", text_safe(path));
	fputc('\n', f);
	free(build_id);
}

int dump_print_table(FILE *f, const struct secmap_module *const *mods, size_t nr_mods)
{
	return dump_print_table_ko(f, mods, nr_mods, NULL);
}

/* SIZE or PGOFF of section @j of module @i: "0x1a40", or "-" if the .ko did not say. */
static int ko_cell(char *buf, size_t size, const struct dump_ko *kos, size_t i, size_t j,
		   bool pgoff)
{
	const struct dump_ko_sec *ks = kos && kos[i].secs && kos[i].secs[j].found ?
				       &kos[i].secs[j] : NULL;

	if (!ks)
		return snprintf(buf, size, "-");
	return snprintf(buf, size, "0x%" PRIx64, pgoff ? ks->s.offset : ks->s.size);
}

int dump_print_table_ko(FILE *f, const struct secmap_module *const *mods, size_t nr_mods,
			const struct dump_ko *kos)
{
	int wmod = strlen("MODULE"), wsec = strlen("SECTION"), waddr = 2 + 16, len;
	int wsize = strlen("SIZE"), wpgoff = strlen("PGOFF");
	char size[2 + 16 + 1], pgoff[2 + 16 + 1];
	size_t i, j, nsec;

	for (i = 0; i < nr_mods; i++) {
		len = strlen(text_safe(secmap_module_name(mods[i])));
		if (len > wmod)
			wmod = len;
		for (j = 0; j < secmap_module_section_count(mods[i]); j++) {
			len = strlen(text_safe(secmap_section_name(secmap_module_section(mods[i], j))));
			if (len > wsec)
				wsec = len;
			if (!kos)
				continue;
			len = ko_cell(size, sizeof(size), kos, i, j, false);
			if (len > wsize)
				wsize = len;
			len = ko_cell(pgoff, sizeof(pgoff), kos, i, j, true);
			if (len > wpgoff)
				wpgoff = len;
		}
	}

	errno = 0;
	if (kos)
		fprintf(f, "%-*s  %-*s  %-*s  %-*s  %-*s  %s\n", wmod, "MODULE", wsec, "SECTION",
			waddr, "ADDRESS", wsize, "SIZE", wpgoff, "PGOFF", "FLAGS");
	else
		fprintf(f, "%-*s  %-*s  %-*s  %s\n", wmod, "MODULE", wsec, "SECTION", waddr,
			"ADDRESS", "FLAGS");
	for (i = 0; i < nr_mods; i++) {
		print_module_line(f, mods[i], kos ? kos[i].path : NULL);
		nsec = secmap_module_section_count(mods[i]);
		/* Keep a module without sections visible rather than dropping it. */
		if (!nsec)
			fprintf(f, "%-*s  %-*s  %s\n", wmod, text_safe(secmap_module_name(mods[i])),
				wsec, "-", "-");
		for (j = 0; j < nsec; j++) {
			const struct secmap_section *sec = secmap_module_section(mods[i], j);
			const char *flags = section_flags_str(secmap_section_flags(sec));

			if (kos) {
				ko_cell(size, sizeof(size), kos, i, j, false);
				ko_cell(pgoff, sizeof(pgoff), kos, i, j, true);
				fprintf(f, "%-*s  %-*s  0x%016" PRIx64 "  %-*s  %-*s%s%s\n", wmod,
					text_safe(secmap_module_name(mods[i])), wsec,
					text_safe(secmap_section_name(sec)),
					secmap_section_addr(sec), wsize, size, *flags ? wpgoff : 0,
					pgoff, *flags ? "  " : "", flags);
				continue;
			}
			/* Zero-padded so that the column lines up; no trailing blanks. */
			fprintf(f, "%-*s  %-*s  0x%016" PRIx64 "%s%s\n", wmod,
				text_safe(secmap_module_name(mods[i])), wsec,
				text_safe(secmap_section_name(sec)),
				secmap_section_addr(sec), *flags ? "  " : "", flags);
		}
	}
	return flush_output(f);
}

/* --- .ko enrichment: what each module's file says about its sections ----- */

/* dump's .ko options; resolved to the actual places before searching. */
enum {
	OPT_KO_PATH = 600,
	OPT_MODULES_ROOT,
	OPT_DEBUG_ROOT,
	OPT_BUILDID_CACHE,
	OPT_RELEASE,
	OPT_FORCE,
	OPT_NO_KO,
	OPT_NO_CACHE,
};

struct dump_ko_opts {
	struct secmap_ko_search search;
	const char **paths;		/* --ko-path, NULL-terminated */
	size_t nr_paths;
	bool force;
	bool no_ko;
	bool no_cache;
	char *cache_dir;		/* the .ko cache, NULL with --no-cache */
	char *buildid_cache;		/* the default, $HOME/.debug */
	struct utsname uts;
};

/* 1: @opt was one of dump's .ko options; 0: it was not; -ENOMEM. */
static int dump_ko_option(struct dump_ko_opts *o, int opt, const char *arg)
{
	const char **paths;

	switch (opt) {
	case OPT_KO_PATH:
		paths = realloc(o->paths, (o->nr_paths + 2) * sizeof(*paths));
		if (!paths)
			return -ENOMEM;
		paths[o->nr_paths++] = arg;
		paths[o->nr_paths] = NULL;
		o->paths = paths;
		o->search.paths = paths;
		return 1;
	case OPT_MODULES_ROOT:
		o->search.modules_root = arg;
		return 1;
	case OPT_DEBUG_ROOT:
		o->search.debug_root = arg;
		return 1;
	case OPT_BUILDID_CACHE:
		o->search.buildid_cache = arg;
		return 1;
	case OPT_RELEASE:
		o->search.release = arg;
		return 1;
	case OPT_FORCE:
		o->force = true;
		return 1;
	case OPT_NO_KO:
		o->no_ko = true;
		return 1;
	case OPT_NO_CACHE:
		o->no_cache = true;
		return 1;
	}
	return 0;
}

static bool dump_ko_option_takes_value(int opt)
{
	return opt >= OPT_KO_PATH && opt <= OPT_RELEASE;
}

/*
 * Spell out libsecmap's defaults, so that an error can say exactly where
 * dump looked. An empty root (no $HOME for the cache) is skipped.
 */
static int dump_ko_opts_resolve(struct dump_ko_opts *o)
{
	const char *home = getenv("HOME");

	if (!o->search.release) {
		if (uname(&o->uts))
			return -errno;
		o->search.release = o->uts.release;
	}
	if (!o->search.modules_root)
		o->search.modules_root = "/lib/modules";
	if (!o->search.debug_root)
		o->search.debug_root = "/usr/lib/debug";
	if (!o->search.buildid_cache) {
		if (home && *home && asprintf(&o->buildid_cache, "%s/.debug", home) < 0)
			return -ENOMEM;
		o->search.buildid_cache = o->buildid_cache ? o->buildid_cache : "";
	}
	/* No $HOME nor $XDG_CACHE_HOME: no cache, as with --no-cache. */
	if (!o->no_cache)
		o->cache_dir = ko_cache_dir();
	return 0;
}

static void dump_ko_opts_free(struct dump_ko_opts *o)
{
	free(o->paths);
	free(o->cache_dir);
	free(o->buildid_cache);
}

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
	file_hex = bytes_hex(file_id, file_len);
	kernel_hex = bytes_hex(kernel_id, kernel_len);
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

/* What @ko says of each section of @mod, into @out. */
static int dump_ko_fill(const struct secmap_module *mod, const struct secmap_ko *ko,
			struct dump_ko *out)
{
	size_t i, n = secmap_module_section_count(mod);

	out->secs = calloc(n ? n : 1, sizeof(*out->secs));
	if (!out->secs)
		return -ENOMEM;
	/* By name, .data..percpu included: the file has it, SHF_ALLOC and all. */
	for (i = 0; i < n; i++)
		out->secs[i].found = !secmap_ko_section(ko, secmap_section_name(
							secmap_module_section(mod, i)),
							&out->secs[i].s);
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

int dump_ko_resolve(const struct secmap_module *const *mods, size_t nr_mods,
		    const struct secmap_ko_search *search, bool force, bool named,
		    const char *cache_dir, FILE *diag, struct dump_ko **kosp)
{
	struct dump_ko *kos = calloc(nr_mods ? nr_mods : 1, sizeof(*kos));
	const struct secmap_module *missing[DUMP_KO_NOTICE_NAMES];
	struct secmap_ko_index *index = NULL;
	size_t i, nr_missing = 0;
	int ret = SECMAP_EXIT_OK, err;
	/* Files the user named are shown as named, not as a cache recalls them. */
	bool read_cache = cache_dir && !(search->paths && search->paths[0]);

	*kosp = NULL;
	if (!kos) {
		p_err("%s", strerror(ENOMEM));
		return SECMAP_EXIT_FAILURE;
	}
	for (i = 0; i < nr_mods; i++) {
		const struct secmap_module *mod = mods[i];
		const char *name = secmap_module_name(mod);
		struct secmap_ko *ko = NULL;
		const uint8_t *id;
		size_t id_len = secmap_module_build_id(mod, &id);
		char *path = NULL, *msg = NULL;
		bool exact;

		if (read_cache) {
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
		/* Found but unreadable is an error: the user would miss it in a notice. */
		err = secmap_ko_open(path, &ko);
		if (err) {
			p_err("cannot read %s: %s", path, ko_strerror(err));
			free(path);
			/* Not exit_code_from_err() for all: -ENOENT there means "no secmap". */
			ret = err == -EACCES || err == -EPERM ? exit_code_from_err(err) :
			      SECMAP_EXIT_FAILURE;
			break;
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
		if (!ret && dump_ko_fill(mod, ko, &kos[i])) {
			p_err("%s", strerror(ENOMEM));
			ret = SECMAP_EXIT_FAILURE;
		}
		secmap_ko_close(ko);
		if (ret) {
			free(path);
			break;
		}
		kos[i].path = path;
		/* Best effort: a dump that cannot write its cache still dumps. */
		if (exact && cache_dir)
			ko_cache_store(cache_dir, mod, &kos[i]);
	}
	secmap_ko_index_free(index);
	if (ret) {
		dump_ko_free(kos, nr_mods);
		return ret;
	}
	if (nr_missing) {
		fprintf(diag, "Notice: no .ko found for %zu module%s: ", nr_missing,
			nr_missing == 1 ? "" : "s");
		for (i = 0; i < nr_missing && i < DUMP_KO_NOTICE_NAMES; i++)
			fprintf(diag, "%s%s", i ? ", " : "", text_safe(secmap_module_name(missing[i])));
		fprintf(diag, "%s\n", nr_missing > DUMP_KO_NOTICE_NAMES ? "..." : "");
	}
	*kosp = kos;
	return SECMAP_EXIT_OK;
}

int do_dump(int argc, char **argv)
{
	/* Output options are global, and accepted here too as users type them. */
	static const struct option opts[] = {
		OUTPUT_LONG_OPTIONS,
		{ "source",	required_argument, NULL, OPT_SOURCE },
		{ "ko-path",	   required_argument, NULL, OPT_KO_PATH },
		{ "modules-root",  required_argument, NULL, OPT_MODULES_ROOT },
		{ "debug-root",	   required_argument, NULL, OPT_DEBUG_ROOT },
		{ "buildid-cache", required_argument, NULL, OPT_BUILDID_CACHE },
		{ "release",	   required_argument, NULL, OPT_RELEASE },
		{ "force",	   no_argument,	      NULL, OPT_FORCE },
		{ "no-ko",	   no_argument,	      NULL, OPT_NO_KO },
		{ "no-cache",	   no_argument,	      NULL, OPT_NO_CACHE },
		{ 0 }
	};
	struct dump_ko_opts ko_opts = { 0 };
	struct dump_ko *kos = NULL;
	const struct secmap_module **mods = NULL;
	struct secmap_snapshot *snap = NULL;
	enum dump_source src = DUMP_SOURCE_AUTO;
	const char *missing = NULL;
	size_t nr_mods;
	int opt, err, ret;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+" OUTPUT_SHORT_OPTIONS, opts, NULL)) != -1) {
		if (handle_output_option(opt))
			continue;
		err = dump_ko_option(&ko_opts, opt, optarg);
		if (err > 0)
			continue;
		if (err < 0) {
			p_err("%s", strerror(-err));
			dump_ko_opts_free(&ko_opts);
			return SECMAP_EXIT_FAILURE;
		}
		switch (opt) {
		case 'h':
			dump_usage(stdout);
			dump_ko_opts_free(&ko_opts);
			return SECMAP_EXIT_OK;
		case OPT_SOURCE:
			if (!parse_source(optarg, &src))
				break;
			p_err("dump: --source must be netlink, sysfs or auto, not '%s'", optarg);
			if (!json_output)
				dump_usage(stderr);
			dump_ko_opts_free(&ko_opts);
			return SECMAP_EXIT_USAGE;
		default:
			dump_ko_opts_free(&ko_opts);
			if (optopt != OPT_SOURCE && !dump_ko_option_takes_value(optopt))
				return usage_error("dump", argv, dump_usage);
			p_err("dump: option '%s' needs a value", argv[optind - 1]);
			if (!json_output)
				dump_usage(stderr);
			return SECMAP_EXIT_USAGE;
		}
	}

	ret = dump_snapshot(src, &snap);
	if (ret)
		goto out;

	err = dump_select(snap, argv + optind, argc - optind, &mods, &nr_mods, &missing);
	if (err == -ENOENT) {
		p_err("module '%s' not loaded", missing);
		ret = SECMAP_EXIT_NOT_FOUND;
		goto out;
	} else if (err) {
		p_err("%s", strerror(-err));
		ret = SECMAP_EXIT_FAILURE;
		goto out;
	}

	if (ko_opts.no_ko) {
		/* JSON keeps its fields (null); the table drops SIZE and PGOFF. */
		kos = calloc(nr_mods ? nr_mods : 1, sizeof(*kos));
		if (!kos) {
			p_err("%s", strerror(ENOMEM));
			ret = SECMAP_EXIT_FAILURE;
			goto out;
		}
	} else {
		err = dump_ko_opts_resolve(&ko_opts);
		if (err) {
			p_err("%s", strerror(-err));
			ret = SECMAP_EXIT_FAILURE;
			goto out;
		}
		/* The kernel's build-id picks the file when there is one. */
		ret = dump_ko_resolve(mods, nr_mods, &ko_opts.search, ko_opts.force,
				      argc > optind, ko_opts.cache_dir, stderr, &kos);
		if (ret)
			goto out;
	}

	if (json_output)
		err = dump_print_json_ko(stdout, mods, nr_mods, kos);
	else
		err = dump_print_table_ko(stdout, mods, nr_mods, ko_opts.no_ko ? NULL : kos);
	ret = SECMAP_EXIT_OK;
	if (err) {
		/* stdout is what failed, so even in JSON mode this goes to stderr. */
		fprintf(stderr, "Error: cannot write output: %s\n", strerror(-err));
		ret = SECMAP_EXIT_FAILURE;
	}
out:
	if (kos)
		dump_ko_free(kos, nr_mods);
	dump_ko_opts_free(&ko_opts);
	free(mods);
	secmap_snapshot_free(snap);
	return ret;
}
