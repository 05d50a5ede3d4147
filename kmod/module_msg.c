// SPDX-License-Identifier: GPL-2.0
/*
 * The module message: SECMAP_A_MODULE_* attributes of one registry entry,
 * shared by GET replies and MODULE_NEW events.
 */
#include "internal.h"

static int put_region(struct sk_buff *skb, const struct secmap_region *region)
{
	struct nlattr *nest = nla_nest_start(skb, SECMAP_A_MODULE_REGION);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, SECMAP_A_REGION_TYPE, region->type) ||
	    nla_put_u64_64bit(skb, SECMAP_A_REGION_BASE, region->base, SECMAP_A_REGION_PAD) ||
	    nla_put_u64_64bit(skb, SECMAP_A_REGION_SIZE, region->size, SECMAP_A_REGION_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* SECMAP_SECTION_F_* of @sec, once init memory is (or is not) @freed. */
static u32 section_flags(const struct secmap_section *sec, bool freed)
{
	if (!sec->init)
		return 0;
	return SECMAP_SECTION_F_INIT | (freed ? SECMAP_SECTION_F_FREED : 0);
}

/* The region type holding @sec, or SECMAP_SECTION_NO_REGION. */
static u32 section_region(const struct secmap_entry *entry, const struct secmap_section *sec,
			  bool freed)
{
	/* A freed init region no longer holds anything. */
	if (sec->region < 0 || (freed && sec->init))
		return SECMAP_SECTION_NO_REGION;
	return entry->regions[sec->region].type;
}

static int put_section(struct sk_buff *skb, const struct secmap_entry *entry,
		       const struct secmap_section *sec, bool freed)
{
	struct nlattr *nest = nla_nest_start(skb, SECMAP_A_MODULE_SECTION);
	u32 region = section_region(entry, sec, freed);

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_string(skb, SECMAP_A_SECTION_NAME, sec->name) ||
	    nla_put_u64_64bit(skb, SECMAP_A_SECTION_ADDR, sec->addr, SECMAP_A_SECTION_PAD) ||
	    nla_put_u32(skb, SECMAP_A_SECTION_FLAGS, section_flags(sec, freed)))
		goto cancel;
	if (region != SECMAP_SECTION_NO_REGION &&
	    nla_put_u32(skb, SECMAP_A_SECTION_REGION, region))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/*
 * Whether the sections fit a table: an attribute holds at most 64 KiB, so a
 * module of more than some 2700 sections keeps the nests.
 */
static bool table_fits(const struct secmap_entry *entry)
{
	size_t max = U16_MAX - NLA_HDRLEN;

	return entry->nr_sections * sizeof(struct secmap_section_desc) <= max &&
	       entry->names_len <= max;
}

/*
 * The sections as one array and one block of names: two attributes for a
 * module rather than five per section.
 */
static int put_section_table(struct sk_buff *skb, const struct secmap_entry *entry, bool freed)
{
	/* capture.c put the names right after the sections, in their order. */
	const char *names = (const char *)&entry->sections[entry->nr_sections];
	struct nlattr *table;
	unsigned int i;
	char *at;

	if (!entry->nr_sections)
		return 0;
	table = nla_reserve_64bit(skb, SECMAP_A_MODULE_SECTION_TABLE,
				  entry->nr_sections * sizeof(struct secmap_section_desc),
				  SECMAP_A_MODULE_PAD);
	if (!table || nla_put(skb, SECMAP_A_MODULE_SECTION_NAMES, entry->names_len, names))
		return -EMSGSIZE;
	at = nla_data(table);
	for (i = 0; i < entry->nr_sections; i++) {
		const struct secmap_section *sec = &entry->sections[i];
		struct secmap_section_desc desc = {
			.addr = sec->addr,
			.name_off = sec->name - names,
			.flags = section_flags(sec, freed),
			.region = section_region(entry, sec, freed),
		};

		/* Where nothing pads for 64-bit, the payload is only 4-byte aligned. */
		memcpy(at + i * sizeof(desc), &desc, sizeof(desc));
	}
	return 0;
}

/**
 * secmap_module_msg_size() - room secmap_module_msg_fill() needs at most
 * @entry: the module
 * @table: sections as a table (SECMAP_A_MODULE_COMPACT), not as nests
 *
 * Return: attribute bytes, without netlink and genetlink headers.
 */
size_t secmap_module_msg_size(const struct secmap_entry *entry, bool table)
{
	size_t size = nla_total_size(strlen(entry->name) + 1) +
		      nla_total_size(sizeof(u32)) +		/* STATE */
		      nla_total_size_64bit(sizeof(u64)) +	/* TAINT */
		      nla_total_size(entry->build_id_len);
	unsigned int i;

	size += entry->nr_regions * nla_total_size(nla_total_size(sizeof(u32)) +
						   2 * nla_total_size_64bit(sizeof(u64)));
	if (table && table_fits(entry))
		return size + nla_total_size_64bit(entry->nr_sections *
						   sizeof(struct secmap_section_desc)) +
		       nla_total_size(entry->names_len);
	for (i = 0; i < entry->nr_sections; i++)
		size += nla_total_size(nla_total_size(strlen(entry->sections[i].name) + 1) +
				       nla_total_size_64bit(sizeof(u64)) +
				       2 * nla_total_size(sizeof(u32)));
	return size;
}

/**
 * secmap_module_msg_fill() - add a module's attributes to a message
 * @skb: message with its genetlink header in place
 * @entry: the module; its state is read once, so the caller need not lock
 * @show_addrs: false to leave out regions and sections (addresses hidden)
 * @table: sections as a table (SECMAP_A_MODULE_COMPACT), not as nests
 *
 * Return: 0, or -EMSGSIZE with @skb possibly holding part of the module.
 */
int secmap_module_msg_fill(struct sk_buff *skb, const struct secmap_entry *entry,
			   bool show_addrs, bool table)
{
	u8 state = READ_ONCE(entry->state);
	/* Once init returned, the kernel frees (or has freed) init memory. */
	bool freed = state != SECMAP_MODULE_STATE_COMING;
	unsigned int i;

	if (nla_put_string(skb, SECMAP_A_MODULE_NAME, entry->name) ||
	    nla_put_u32(skb, SECMAP_A_MODULE_STATE, state) ||
	    nla_put_u64_64bit(skb, SECMAP_A_MODULE_TAINT, entry->taints, SECMAP_A_MODULE_PAD))
		return -EMSGSIZE;
	if (entry->build_id_len &&
	    nla_put(skb, SECMAP_A_MODULE_BUILD_ID, entry->build_id_len, entry->build_id))
		return -EMSGSIZE;
	if (!show_addrs)
		return 0;

	for (i = 0; i < entry->nr_regions; i++) {
		if (freed && secmap_region_is_init(entry->regions[i].type))
			continue;
		if (put_region(skb, &entry->regions[i]))
			return -EMSGSIZE;
	}
	if (table && table_fits(entry))
		return put_section_table(skb, entry, freed);
	for (i = 0; i < entry->nr_sections; i++)
		if (put_section(skb, entry, &entry->sections[i], freed))
			return -EMSGSIZE;
	return 0;
}
