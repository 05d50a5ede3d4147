// SPDX-License-Identifier: GPL-2.0
/*
 * The registry: secmap's own copy of every loaded module's section table.
 *
 * Readers never touch a struct module: they read entries under the
 * registry lock or hold a reference to one. tracking.c keeps the registry
 * current; the generation counter lets multi-part dumps notice changes.
 */
#include "internal.h"

#include <linux/slab.h>
#include <linux/spinlock.h>

/* A spinlock, not a mutex: the load tracepoint probe runs in atomic context. */
static DEFINE_SPINLOCK(registry_lock);
static LIST_HEAD(registry);
/* Starts at 1: a dump's cb->seq of 0 means "not checked" to the core. */
static u64 generation = 1;

static void entry_release(struct kref *ref)
{
	kfree(container_of(ref, struct secmap_entry, ref));
}

/**
 * secmap_entry_put() - drop a reference to an entry
 * @entry: the entry
 */
void secmap_entry_put(struct secmap_entry *entry)
{
	kref_put(&entry->ref, entry_release);
}

/**
 * secmap_registry_lock() - take the registry lock
 *
 * Serializes registry changes with events (so sequence numbers follow the
 * order of changes) and with readers.
 */
void secmap_registry_lock(void)
	__acquires(&registry_lock)
{
	spin_lock(&registry_lock);
}

/**
 * secmap_registry_unlock() - release the registry lock
 */
void secmap_registry_unlock(void)
	__releases(&registry_lock)
{
	spin_unlock(&registry_lock);
}

/**
 * secmap_registry_assert_held() - for the _locked helpers of other files
 *
 * The lock is private to this file; lockdep checks it for them.
 */
void secmap_registry_assert_held(void)
{
	lockdep_assert_held(&registry_lock);
}

/**
 * secmap_registry_generation_locked() - the current generation
 *
 * Return: a counter bumped by every load, init completion and unload.
 * Caller holds the registry lock.
 */
u64 secmap_registry_generation_locked(void)
{
	lockdep_assert_held(&registry_lock);
	return generation;
}

/**
 * secmap_registry_find_locked() - the entry of a module
 * @mod: module identity
 *
 * Return: the entry (no reference taken) or NULL.
 */
struct secmap_entry *secmap_registry_find_locked(const struct module *mod)
{
	struct secmap_entry *entry;

	lockdep_assert_held(&registry_lock);
	list_for_each_entry(entry, &registry, node)
		if (entry->mod == mod)
			return entry;
	return NULL;
}

/**
 * secmap_registry_add_locked() - list a new entry, taking over its reference
 * @entry: from secmap_capture()
 *
 * Return: false if the module is already listed; the caller keeps @entry.
 */
bool secmap_registry_add_locked(struct secmap_entry *entry)
{
	lockdep_assert_held(&registry_lock);
	if (secmap_registry_find_locked(entry->mod))
		return false;
	list_add_tail(&entry->node, &registry);
	generation++;
	return true;
}

/**
 * secmap_registry_set_state_locked() - record a state change
 * @entry: a listed entry
 * @state: &enum secmap_module_state
 */
void secmap_registry_set_state_locked(struct secmap_entry *entry, u8 state)
{
	lockdep_assert_held(&registry_lock);
	WRITE_ONCE(entry->state, state);
	generation++;
}

/**
 * secmap_registry_del_locked() - unlist an entry
 * @entry: a listed entry; the registry's reference passes to the caller
 *
 * The entry's state becomes GOING, so a reader holding a reference sees
 * that the module left.
 */
void secmap_registry_del_locked(struct secmap_entry *entry)
{
	lockdep_assert_held(&registry_lock);
	list_del_init(&entry->node);
	WRITE_ONCE(entry->state, SECMAP_MODULE_STATE_GOING);
	generation++;
}

/**
 * secmap_registry_get() - look up a module by name
 * @name: module name, exactly as the kernel spells it
 *
 * Return: the entry with a reference the caller drops with
 * secmap_entry_put(), or NULL if no such module is tracked.
 */
struct secmap_entry *secmap_registry_get(const char *name)
{
	struct secmap_entry *entry, *found = NULL;

	spin_lock(&registry_lock);
	list_for_each_entry(entry, &registry, node) {
		if (!strcmp(entry->name, name)) {
			kref_get(&entry->ref);
			found = entry;
			break;
		}
	}
	spin_unlock(&registry_lock);
	return found;
}

/**
 * secmap_registry_walk() - visit entries in registry order
 * @pos: index of the first entry to visit; on return, of the first one
 *	 @visit did not accept (so a dump can resume there)
 * @gen: set to the generation the visited entries belong to
 * @visit: called under the registry lock, must not sleep; non-zero stops
 * @arg: passed to @visit
 *
 * Return: the value of @visit that stopped the walk, or 0.
 */
int secmap_registry_walk(unsigned long *pos, u64 *gen, secmap_entry_visit_t visit, void *arg)
{
	const struct secmap_entry *entry;
	unsigned long idx = 0;
	int ret = 0;

	spin_lock(&registry_lock);
	*gen = generation;
	list_for_each_entry(entry, &registry, node) {
		if (idx++ < *pos)
			continue;
		ret = visit(entry, arg);
		if (ret)
			break;
		(*pos)++;
	}
	spin_unlock(&registry_lock);
	return ret;
}

/**
 * secmap_registry_max_msg_size() - room the largest module's message needs
 * @table: sections as a table (SECMAP_A_MODULE_COMPACT), not as nests
 *
 * Return: attribute bytes, as secmap_module_msg_size() counts them.
 */
size_t secmap_registry_max_msg_size(bool table)
{
	const struct secmap_entry *entry;
	size_t size = 0;

	spin_lock(&registry_lock);
	list_for_each_entry(entry, &registry, node)
		size = max(size, secmap_module_msg_size(entry, table));
	spin_unlock(&registry_lock);
	return size;
}

/**
 * secmap_registry_memory() - what the registry costs
 * @nr_entries: set to the number of tracked modules
 * @nr_sections: set to the number of tracked sections
 *
 * Return: bytes allocated for entries (as requested, before slab rounding).
 */
size_t secmap_registry_memory(unsigned int *nr_entries, unsigned int *nr_sections)
{
	const struct secmap_entry *entry;
	size_t bytes = 0;

	*nr_entries = 0;
	*nr_sections = 0;
	spin_lock(&registry_lock);
	list_for_each_entry(entry, &registry, node) {
		bytes += struct_size(entry, sections, entry->nr_sections) + entry->names_len;
		(*nr_entries)++;
		*nr_sections += entry->nr_sections;
	}
	spin_unlock(&registry_lock);
	return bytes;
}

/**
 * secmap_registry_clear() - unlist and release every entry
 */
void secmap_registry_clear(void)
{
	struct secmap_entry *entry, *tmp;
	LIST_HEAD(doomed);

	spin_lock(&registry_lock);
	list_splice_init(&registry, &doomed);
	generation++;
	spin_unlock(&registry_lock);

	list_for_each_entry_safe(entry, tmp, &doomed, node) {
		list_del(&entry->node);
		secmap_entry_put(entry);
	}
}
