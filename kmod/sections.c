// SPDX-License-Identifier: GPL-2.0
/*
 * Copy a module's section table out of the kernel's private sysfs structure.
 *
 * The kernel keeps final section addresses only in mod->sect_attrs, the
 * structure behind /sys/module/NAME/sections. Its layout is private to
 * kernel/module/sysfs.c and changed in 6.14; compat.h hides that. Reading
 * it is safe only while the module cannot be freed: the callers hold a
 * module reference or run in the module's own load path.
 */
#include "internal.h"
#include "compat.h"

#include <linux/slab.h>
#include <linux/string.h>

/**
 * secmap_entry_from_module() - snapshot the sections of a module
 * @mod: a module whose sysfs section table is set up and cannot go away
 * @gfp: allocation flags (GFP_ATOMIC from tracepoint context)
 *
 * The result holds exactly the sections /sys/module/NAME/sections shows.
 * Names are copied into the same allocation so one kfree() releases all.
 *
 * Return: a new entry with one reference, or NULL on allocation failure.
 */
struct secmap_entry *secmap_entry_from_module(const struct module *mod, gfp_t gfp)
{
	const struct attribute_group *grp = secmap_compat_sect_group(mod);
	unsigned int nr = 0, i;
	size_t names_len = 0;
	struct secmap_entry *entry;
	char *names;

	for (i = 0; grp && grp->bin_attrs && grp->bin_attrs[i]; i++) {
		names_len += strlen(grp->bin_attrs[i]->attr.name) + 1;
		nr++;
	}

	entry = kzalloc(struct_size(entry, sections, nr) + names_len, gfp);
	if (!entry)
		return NULL;

	kref_init(&entry->ref);
	INIT_LIST_HEAD(&entry->node);
	entry->mod = mod;
	strscpy(entry->name, mod->name, sizeof(entry->name));
	entry->nr_sections = nr;

	names = (char *)&entry->sections[nr];
	for (i = 0; i < nr; i++) {
		const struct bin_attribute *battr = grp->bin_attrs[i];
		size_t len = strlen(battr->attr.name) + 1;

		memcpy(names, battr->attr.name, len);
		entry->sections[i].name = names;
		entry->sections[i].addr = secmap_compat_sect_addr(battr);
		names += len;
	}
	return entry;
}
