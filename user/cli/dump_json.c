// SPDX-License-Identifier: GPL-2.0
/*
 * secmap dump's JSON: a module with its regions and sections, with what its
 * .ko says when dump looked for it; monitor prints the same for a load.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>

#include "dump.h"
#include "dump_ko.h"
#include "json_out.h"
#include "secmap_cli.h"

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
	const struct dump_ko_sec *ks = dump_ko_section(ko, index);

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

void dump_module_out(struct json_out *o, const char *key, const struct secmap_module *mod,
		     const struct dump_ko *ko)
{
	char *build_id = module_build_id_text(mod);
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

int dump_print_json(FILE *f, const char *source, const struct secmap_module *const *mods,
		    size_t nr_mods, const struct dump_ko *kos)
{
	struct json_out *o = json_out_stream(f, pretty_output);
	size_t i;

	if (!o)
		return -ENOMEM;
	json_out_object_begin(o, NULL);
	json_out_str(o, "source", source);
	json_out_array_begin(o, "modules");
	for (i = 0; i < nr_mods; i++)
		dump_module_out(o, NULL, mods[i], kos ? &kos[i] : NULL);
	json_out_array_end(o);
	json_out_object_end(o);
	return json_out_finish(o);
}
