// SPDX-License-Identifier: GPL-2.0
/*
 * Copy what secmap reports about a module out of its struct module.
 *
 * Final section addresses live only in mod->sect_attrs, the structure
 * behind /sys/module/NAME/sections, private to kernel/module/sysfs.c;
 * regions in mod->mem[] (core/init layouts before 6.4). compat.h hides the
 * layouts. Reading is safe only while the module cannot be freed: callers
 * hold a module reference or run in the module's own load path.
 */
#include "internal.h"
#include "compat.h"

#include <linux/elf.h>
#include <linux/slab.h>
#include <linux/string.h>

#define PERCPU_SECTION	".data..percpu"
/* The GNU note type of a build-id (binutils elf/common.h); kernel headers lack it. */
#define GNU_NOTE_BUILD_ID	3

static s8 region_of(const struct secmap_entry *entry, unsigned long addr)
{
	unsigned int i;

	for (i = 0; i < entry->nr_regions; i++)
		if (addr >= entry->regions[i].base &&
		    addr - entry->regions[i].base < entry->regions[i].size)
			return i;
	return -1;
}

/*
 * The build-id note is an allocated section, so it is in module memory;
 * parsing it works whether or not the kernel keeps mod->build_id.
 */
static void capture_build_id(struct secmap_entry *entry)
{
	const struct elf_note *note = NULL;
	const char *name;
	unsigned int i;

	for (i = 0; i < entry->nr_sections; i++)
		if (!strcmp(entry->sections[i].name, ".note.gnu.build-id"))
			note = (const struct elf_note *)entry->sections[i].addr;
	if (!note || note->n_type != GNU_NOTE_BUILD_ID || note->n_namesz != sizeof("GNU") ||
	    !note->n_descsz || note->n_descsz > SECMAP_BUILD_ID_MAX)
		return;
	name = (const char *)(note + 1);
	if (memcmp(name, "GNU", sizeof("GNU")))
		return;
	memcpy(entry->build_id, name + ALIGN(note->n_namesz, 4), note->n_descsz);
	entry->build_id_len = note->n_descsz;
}

/*
 * Init memory holds the .init* sections (the loader's own test, in
 * module_init_layout_section()) and also the full .symtab and .strtab,
 * of which only a core copy survives for kallsyms. Once a module is live
 * its init regions are gone, so a section outside every region was there.
 */
static bool in_init_memory(const struct secmap_entry *entry, const struct secmap_section *sec,
			   u8 state)
{
	if (strstarts(sec->name, ".init"))
		return true;
	if (sec->region < 0)
		return state != SECMAP_MODULE_STATE_COMING;
	return secmap_region_is_init(entry->regions[sec->region].type);
}

static unsigned long percpu_size(const struct module *mod, unsigned long *base)
{
#ifdef CONFIG_SMP
	*base = (unsigned long)mod->percpu;
	return mod->percpu_size;
#else
	*base = 0;
	return 0;
#endif
}

/**
 * secmap_capture() - snapshot a module's sections, regions and identity
 * @mod: a module whose sysfs section table is set up and cannot go away
 * @state: &enum secmap_module_state to record
 * @gfp: allocation flags (GFP_ATOMIC from tracepoint context)
 *
 * The sections are exactly those /sys/module/NAME/sections shows, plus
 * .data..percpu, which loses SHF_ALLOC at load and so is not in sysfs.
 * Names are copied into the same allocation so one kfree() releases all.
 *
 * Return: a new entry with one reference, or NULL on allocation failure.
 */
struct secmap_entry *secmap_capture(const struct module *mod, u8 state, gfp_t gfp)
{
	const struct attribute_group *grp = secmap_compat_sect_group(mod);
	unsigned long pcpu_base, pcpu_size = percpu_size(mod, &pcpu_base);
	unsigned int nr_sysfs = 0, nr, i;
	struct secmap_entry *entry;
	size_t names_len = 0;
	char *names;

	for (i = 0; grp && grp->bin_attrs && grp->bin_attrs[i]; i++) {
		names_len += strlen(grp->bin_attrs[i]->attr.name) + 1;
		nr_sysfs++;
	}
	nr = nr_sysfs;
	if (pcpu_size) {
		names_len += sizeof(PERCPU_SECTION);
		nr++;
	}

	entry = kzalloc(struct_size(entry, sections, nr) + names_len, gfp);
	if (!entry)
		return NULL;

	kref_init(&entry->ref);
	INIT_LIST_HEAD(&entry->node);
	entry->mod = mod;
	entry->state = state;
	strscpy(entry->name, mod->name, sizeof(entry->name));
	entry->taints = mod->taints;
	/* Every memory type the kernel has, and the per-CPU area, fit. */
	BUILD_BUG_ON(SECMAP_COMPAT_MAX_REGIONS + 1 > ARRAY_SIZE(entry->regions));
	entry->nr_regions = secmap_compat_regions(mod, entry->regions);
	if (pcpu_size) {
		entry->regions[entry->nr_regions].type = SECMAP_REGION_PERCPU;
		entry->regions[entry->nr_regions].base = pcpu_base;
		entry->regions[entry->nr_regions].size = pcpu_size;
		entry->nr_regions++;
	}

	entry->nr_sections = nr;
	entry->names_len = names_len;
	names = (char *)&entry->sections[nr];
	for (i = 0; i < nr; i++) {
		struct secmap_section *sec = &entry->sections[i];
		const char *name = i < nr_sysfs ? grp->bin_attrs[i]->attr.name : PERCPU_SECTION;
		size_t len = strlen(name) + 1;

		memcpy(names, name, len);
		sec->name = names;
		names += len;
		sec->addr = i < nr_sysfs ? secmap_compat_sect_addr(grp->bin_attrs[i]) : pcpu_base;
		sec->region = region_of(entry, sec->addr);
		sec->init = in_init_memory(entry, sec, state);
	}
	capture_build_id(entry);
	return entry;
}
