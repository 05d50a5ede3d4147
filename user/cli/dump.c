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

/* A string, or null when @str is NULL. */
static int obj_add_str_or_null(struct json_object *obj, const char *key, const char *str)
{
	return str ? obj_add(obj, key, json_object_new_string(str)) : obj_add_null(obj, key);
}

static int obj_add_hex(struct json_object *obj, const char *key, uint64_t val)
{
	char hex[2 + 16 + 1];

	snprintf(hex, sizeof(hex), "0x%" PRIx64, val);
	return obj_add(obj, key, json_object_new_string(hex));
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

const char *section_flags_str(uint32_t flags)
{
	if (!(flags & SECMAP_SECTION_F_INIT))
		return "";
	return flags & SECMAP_SECTION_F_FREED ? "init,freed" : "init";
}

char *build_id_hex(const struct secmap_module *mod)
{
	static const char digits[] = "0123456789abcdef";
	const uint8_t *id;
	size_t len = secmap_module_build_id(mod, &id), i;
	char *hex;

	if (!len)
		return NULL;
	hex = malloc(2 * len + 1);
	if (!hex)
		return NULL;
	for (i = 0; i < len; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 0xf];
	}
	hex[2 * len] = '\0';
	return hex;
}

static struct json_object *section_json(const struct secmap_section *sec)
{
	struct json_object *obj = json_object_new_object();
	uint32_t flags = secmap_section_flags(sec);
	int region = secmap_section_region(sec);

	if (!obj)
		return NULL;
	/* size and pgoff come from the .ko, which a later change reads. */
	if (obj_add(obj, "name", json_object_new_string(secmap_section_name(sec))) ||
	    obj_add_hex(obj, "addr", secmap_section_addr(sec)) ||
	    obj_add_null(obj, "size") ||
	    obj_add_null(obj, "pgoff") ||
	    obj_add(obj, "init", json_object_new_boolean(!!(flags & SECMAP_SECTION_F_INIT))) ||
	    obj_add(obj, "freed", json_object_new_boolean(!!(flags & SECMAP_SECTION_F_FREED))) ||
	    obj_add_str_or_null(obj, "region",
				region < 0 ? NULL : secmap_region_type_name(region))) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

static struct json_object *region_json(const struct secmap_region *reg)
{
	struct json_object *obj = json_object_new_object();

	if (!obj)
		return NULL;
	if (obj_add_str_or_null(obj, "type", secmap_region_type_name(secmap_region_type(reg))) ||
	    obj_add_hex(obj, "base", secmap_region_base(reg)) ||
	    obj_add(obj, "size", json_object_new_uint64(secmap_region_size(reg)))) {
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

/* Add a new array under @key and return it (owned by @obj), or NULL. */
static struct json_object *obj_add_array(struct json_object *obj, const char *key)
{
	struct json_object *arr = json_object_new_array();

	return obj_add(obj, key, arr) ? NULL : arr;
}

struct json_object *dump_module_json(const struct secmap_module *mod)
{
	struct json_object *obj = json_object_new_object(), *regs, *secs;
	char *build_id = build_id_hex(mod);
	size_t i;

	if (!obj || (secmap_module_build_id(mod, NULL) && !build_id))
		goto fail;
	if (obj_add(obj, "name", json_object_new_string(secmap_module_name(mod))) ||
	    obj_add_str_or_null(obj, "state", secmap_module_state_name(secmap_module_state(mod))) ||
	    obj_add(obj, "taint", json_object_new_uint64(secmap_module_taint(mod))) ||
	    obj_add_str_or_null(obj, "build_id", build_id))
		goto fail;
	regs = obj_add_array(obj, "regions");
	if (!regs)
		goto fail;
	for (i = 0; i < secmap_module_region_count(mod); i++)
		if (arr_add(regs, region_json(secmap_module_region(mod, i))))
			goto fail;
	secs = obj_add_array(obj, "sections");
	if (!secs)
		goto fail;
	for (i = 0; i < secmap_module_section_count(mod); i++)
		if (arr_add(secs, section_json(secmap_module_section(mod, i))))
			goto fail;
	free(build_id);
	return obj;
fail:
	free(build_id);
	json_object_put(obj);
	return NULL;
}

struct json_object *dump_build_json(const struct secmap_module *const *mods, size_t nr_mods)
{
	struct json_object *root = json_object_new_object(), *arr;
	size_t i;

	if (!root)
		return NULL;
	/* Where the data came from; a later change adds offline sources. */
	if (obj_add(root, "source", json_object_new_string("netlink")))
		goto fail;
	arr = obj_add_array(root, "modules");
	if (!arr)
		goto fail;
	for (i = 0; i < nr_mods; i++)
		if (arr_add(arr, dump_module_json(mods[i])))
			goto fail;
	return root;
fail:
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

/* "dummy  live  taint 0x1000  build-id 3f2a..." */
static void print_module_line(FILE *f, const struct secmap_module *mod)
{
	const char *state = secmap_module_state_name(secmap_module_state(mod));
	char *build_id = build_id_hex(mod);

	fprintf(f, "%s  %s", secmap_module_name(mod), state ? state : "-");
	if (secmap_module_taint(mod))
		fprintf(f, "  taint 0x%" PRIx64, secmap_module_taint(mod));
	if (build_id)
		fprintf(f, "  build-id %s", build_id);
	fputc('\n', f);
	free(build_id);
}

int dump_print_table(FILE *f, const struct secmap_module *const *mods, size_t nr_mods)
{
	int wmod = strlen("MODULE"), wsec = strlen("SECTION"), waddr = 2 + 16, len;
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
	fprintf(f, "%-*s  %-*s  %-*s  %s\n", wmod, "MODULE", wsec, "SECTION", waddr, "ADDRESS",
		"FLAGS");
	for (i = 0; i < nr_mods; i++) {
		print_module_line(f, mods[i]);
		nsec = secmap_module_section_count(mods[i]);
		/* Keep a module without sections visible rather than dropping it. */
		if (!nsec)
			fprintf(f, "%-*s  %-*s  %s\n", wmod, secmap_module_name(mods[i]),
				wsec, "-", "-");
		for (j = 0; j < nsec; j++) {
			const struct secmap_section *sec = secmap_module_section(mods[i], j);
			const char *flags = section_flags_str(secmap_section_flags(sec));

			/* Zero-padded so that the column lines up; no trailing blanks. */
			fprintf(f, "%-*s  %-*s  0x%016" PRIx64 "%s%s\n", wmod,
				secmap_module_name(mods[i]), wsec, secmap_section_name(sec),
				secmap_section_addr(sec), *flags ? "  " : "", flags);
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
		OUTPUT_LONG_OPTIONS,
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
	while ((opt = getopt_long(argc, argv, "+" OUTPUT_SHORT_OPTIONS, opts, NULL)) != -1) {
		if (handle_output_option(opt))
			continue;
		switch (opt) {
		case 'h':
			dump_usage(stdout);
			return SECMAP_EXIT_OK;
		default:
			return usage_error("dump", argv, dump_usage);
		}
	}

	ret = open_client(&client);
	if (ret)
		return ret;
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
