// SPDX-License-Identifier: GPL-2.0
/* secmap dump: print where each section of each loaded module was placed. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "secmap_cli.h"

static void dump_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s dump [-j|--json] [-p|--pretty] [MODULE...]\n"
		"\n"
		"Show the address the kernel loaded each ELF section of each module at,\n"
		"or only of the MODULEs named ('-' and '_' in names are interchangeable).\n"
		"\n"
		"Options:\n"
		"  -j, --json    JSON output\n"
		"  -p, --pretty  pretty-printed JSON output (implies --json)\n"
		"  -h, --help    show this help\n",
		bin_name);
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
static int obj_add(struct json_object *obj, const char *key, struct json_object *val)
{
	if (!val)
		return -ENOMEM;
	if (json_object_object_add(obj, key, val)) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

static int arr_add(struct json_object *arr, struct json_object *val)
{
	if (!val)
		return -ENOMEM;
	if (json_object_array_add(arr, val)) {
		json_object_put(val);
		return -ENOMEM;
	}
	return 0;
}

static struct json_object *section_json(const struct secmap_section *sec)
{
	struct json_object *obj = json_object_new_object();
	char addr[2 + 16 + 1];

	if (!obj)
		return NULL;
	snprintf(addr, sizeof(addr), "0x%" PRIx64, secmap_section_addr(sec));
	if (obj_add(obj, "name", json_object_new_string(secmap_section_name(sec))) ||
	    obj_add(obj, "addr", json_object_new_string(addr))) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

static struct json_object *module_json(const struct secmap_module *mod)
{
	struct json_object *obj = json_object_new_object(), *secs = json_object_new_array();
	size_t i;

	if (!obj || !secs)
		goto fail;
	for (i = 0; i < secmap_module_section_count(mod); i++)
		if (arr_add(secs, section_json(secmap_module_section(mod, i))))
			goto fail;
	if (obj_add(obj, "name", json_object_new_string(secmap_module_name(mod))))
		goto fail;
	if (obj_add(obj, "sections", secs)) {
		secs = NULL;
		goto fail;
	}
	return obj;
fail:
	json_object_put(secs);
	json_object_put(obj);
	return NULL;
}

struct json_object *dump_build_json(const struct secmap_module *const *mods, size_t nr_mods)
{
	struct json_object *root = json_object_new_object(), *arr = json_object_new_array();
	size_t i;

	if (!root || !arr)
		goto fail;
	for (i = 0; i < nr_mods; i++)
		if (arr_add(arr, module_json(mods[i])))
			goto fail;
	if (obj_add(root, "modules", arr)) {
		arr = NULL;
		goto fail;
	}
	return root;
fail:
	json_object_put(arr);
	json_object_put(root);
	return NULL;
}

int dump_print_json(FILE *f, const struct secmap_module *const *mods, size_t nr_mods)
{
	struct json_object *root = dump_build_json(mods, nr_mods);
	int err;

	if (!root)
		return -ENOMEM;
	err = print_json(f, root);
	json_object_put(root);
	return err;
}

int dump_print_table(FILE *f, const struct secmap_module *const *mods, size_t nr_mods)
{
	int wmod = strlen("MODULE"), wsec = strlen("SECTION"), len;
	size_t i, j, nsec;

	for (i = 0; i < nr_mods; i++) {
		len = strlen(secmap_module_name(mods[i]));
		if (len > wmod)
			wmod = len;
		for (j = 0; j < secmap_module_section_count(mods[i]); j++) {
			len = strlen(secmap_section_name(secmap_module_section(mods[i], j)));
			if (len > wsec)
				wsec = len;
		}
	}

	errno = 0;
	fprintf(f, "%-*s  %-*s  %s\n", wmod, "MODULE", wsec, "SECTION", "ADDRESS");
	for (i = 0; i < nr_mods; i++) {
		nsec = secmap_module_section_count(mods[i]);
		/* Keep a module without sections visible rather than dropping it. */
		if (!nsec)
			fprintf(f, "%-*s  %-*s  %s\n", wmod, secmap_module_name(mods[i]),
				wsec, "-", "-");
		for (j = 0; j < nsec; j++) {
			const struct secmap_section *sec = secmap_module_section(mods[i], j);

			/* Zero-padded so that the column lines up. */
			fprintf(f, "%-*s  %-*s  0x%016" PRIx64 "\n", wmod,
				secmap_module_name(mods[i]), wsec, secmap_section_name(sec),
				secmap_section_addr(sec));
		}
	}
	if (fflush(f) == EOF || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

int do_dump(int argc, char **argv)
{
	/* Output options are global, and accepted here too as users type them. */
	static const struct option opts[] = {
		{ "json",	no_argument, NULL, 'j' },
		{ "pretty",	no_argument, NULL, 'p' },
		{ "help",	no_argument, NULL, 'h' },
		{ 0 }
	};
	const struct secmap_module **mods = NULL;
	struct secmap_snapshot *snap = NULL;
	struct secmap_client *client = NULL;
	const char *missing = NULL;
	size_t nr_mods;
	int opt, err, ret;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+jph", opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			pretty_output = true;
			/* fall through */
		case 'j':
			json_output = true;
			break;
		case 'h':
			dump_usage(stdout);
			return SECMAP_EXIT_OK;
		default:
			/* optopt is set for short options only; a bad long one is in argv. */
			if (optopt)
				p_err("dump: unknown option '-%c'", optopt);
			else
				p_err("dump: unknown option '%s'", argv[optind - 1]);
			if (!json_output)
				dump_usage(stderr);
			return SECMAP_EXIT_USAGE;
		}
	}

	err = secmap_client_open(&client);
	if (err) {
		p_err("%s", secmap_strerror(err));
		return exit_code_from_err(err);
	}
	err = secmap_client_dump(client, &snap);
	secmap_client_close(client);
	if (err) {
		p_err("dump failed: %s", secmap_strerror(err));
		return exit_code_from_err(err);
	}

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

	if (json_output)
		err = dump_print_json(stdout, mods, nr_mods);
	else
		err = dump_print_table(stdout, mods, nr_mods);
	ret = SECMAP_EXIT_OK;
	if (err) {
		/* stdout is what failed, so even in JSON mode this goes to stderr. */
		fprintf(stderr, "Error: cannot write output: %s\n", strerror(-err));
		ret = SECMAP_EXIT_FAILURE;
	}
out:
	free(mods);
	secmap_snapshot_free(snap);
	return ret;
}
