// SPDX-License-Identifier: GPL-2.0
/*
 * secmap dump: print where each section of each loaded module was placed.
 * The command, its options, which modules, and the table; the JSON is in
 * dump_json.c, the .ko files' part in dump_ko.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "dump.h"
#include "dump_ko.h"
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
		const char *why = module_refused_reason();

		fprintf(stderr, "Notice: secmap module not loaded%s%s%s; reading /proc/modules and "
			"/sys/module (no regions, no events)\n", why ? " (" : "", why ? why : "",
			why ? ")" : "");
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

/* "init", "init,freed" or "" for SECMAP_SECTION_F_* @flags. */
static const char *section_flags_str(uint32_t flags)
{
	if (!(flags & SECMAP_SECTION_F_INIT))
		return "";
	return flags & SECMAP_SECTION_F_FREED ? "init,freed" : "init";
}

/* "dummy  live  taint 0x1000  build-id 3f2a...  file /lib/modules/..." */
static void print_module_line(FILE *f, const struct secmap_module *mod, const char *path)
{
	const char *state = secmap_module_state_name(secmap_module_state(mod));
	char *build_id = module_build_id_text(mod);

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

/* SIZE or PGOFF of section @j of module @i: "0x1a40", or "-" if the .ko did not say. */
static int ko_cell(char *buf, size_t size, const struct dump_ko *kos, size_t i, size_t j,
		   bool pgoff)
{
	const struct dump_ko_sec *ks = kos ? dump_ko_section(&kos[i], j) : NULL;

	if (!ks)
		return snprintf(buf, size, "-");
	return snprintf(buf, size, "0x%" PRIx64, pgoff ? ks->s.offset : ks->s.size);
}

int dump_print_table(FILE *f, const struct secmap_module *const *mods, size_t nr_mods,
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
	switch (opt) {
	case OPT_KO_PATH:
		if (path_list_add(&o->paths, &o->nr_paths, arg))
			return -ENOMEM;
		o->search.paths = o->paths;
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
	if (!o->no_cache && secmap_ko_cache_dir(&o->cache_dir) == -ENOMEM)
		return -ENOMEM;
	return 0;
}

static void dump_ko_opts_free(struct dump_ko_opts *o)
{
	free(o->paths);
	free(o->cache_dir);
	free(o->buildid_cache);
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
	struct dump_ko_opts ko_opts = { .search.sz = sizeof(struct secmap_ko_search) };
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
		err = dump_print_json(stdout, dump_source_used, mods, nr_mods, kos);
	else
		err = dump_print_table(stdout, mods, nr_mods, ko_opts.no_ko ? NULL : kos);
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
