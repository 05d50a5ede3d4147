// SPDX-License-Identifier: GPL-2.0
/*
 * The registry: secmap's own copy of every loaded module's section table.
 *
 * Built at start-up from the module kset and then kept current by the
 * module notifier, so that readers never touch a struct module: they read
 * immutable entries under registry_lock or hold a reference to one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "internal.h"

#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

/* A spinlock, not a mutex: the load tracepoint probe runs in atomic context. */
static DEFINE_SPINLOCK(registry_lock);
static LIST_HEAD(registry);

static void entry_release(struct kref *ref)
{
	kfree(container_of(ref, struct secmap_entry, ref));
}

/**
 * secmap_entry_put() - drop a reference taken by secmap_registry_get()
 * @entry: the entry
 */
void secmap_entry_put(struct secmap_entry *entry)
{
	kref_put(&entry->ref, entry_release);
}

static struct secmap_entry *find_locked(const struct module *mod)
{
	struct secmap_entry *entry;

	list_for_each_entry(entry, &registry, node)
		if (entry->mod == mod)
			return entry;
	return NULL;
}

/*
 * Start-up enumeration and the notifier may both see a module go live;
 * the first one to insert wins.
 */
static void registry_add(struct secmap_entry *entry)
{
	bool dup;

	spin_lock(&registry_lock);
	dup = find_locked(entry->mod);
	if (!dup)
		list_add_tail(&entry->node, &registry);
	spin_unlock(&registry_lock);

	if (dup)
		secmap_entry_put(entry);
}

static void registry_remove(const struct module *mod)
{
	struct secmap_entry *entry;

	spin_lock(&registry_lock);
	entry = find_locked(mod);
	if (entry)
		list_del(&entry->node);
	spin_unlock(&registry_lock);

	if (entry)
		secmap_entry_put(entry);
}

/*
 * @mod must be pinned by a reference: without one it could be unloaded,
 * and its section table freed, while we copy it.
 */
static void registry_add_pinned(struct module *mod)
{
	struct secmap_entry *entry = secmap_entry_from_module(mod, GFP_KERNEL);

	if (!entry) {
		pr_warn_ratelimited("out of memory, %s not tracked\n", mod->name);
		return;
	}
	registry_add(entry);
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
 *	 @fill did not accept (so a dump can resume there)
 * @fill: called under the registry lock, must not sleep; non-zero stops
 * @arg: passed to @fill
 *
 * Return: the value of @fill that stopped the walk, or 0.
 */
int secmap_registry_walk(unsigned long *pos, secmap_entry_visit_t fill, void *arg)
{
	const struct secmap_entry *entry;
	unsigned long idx = 0;
	int ret = 0;

	spin_lock(&registry_lock);
	list_for_each_entry(entry, &registry, node) {
		if (idx++ < *pos)
			continue;
		ret = fill(entry, arg);
		if (ret)
			break;
		(*pos)++;
	}
	spin_unlock(&registry_lock);
	return ret;
}

static int secmap_module_notify(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = data;

	switch (state) {
	case MODULE_STATE_LIVE:
		/* A concurrent rmmod cannot free @mod while we hold a reference. */
		if (try_module_get(mod)) {
			registry_add_pinned(mod);
			module_put(mod);
		}
		break;
	case MODULE_STATE_GOING:
		registry_remove(mod);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block secmap_module_nb = {
	.notifier_call = secmap_module_notify,
};

/*
 * Pin every live module under the kset's list lock, then copy their
 * sections with the lock dropped (copying allocates). Modules still coming
 * are left to the notifier, registered before this runs.
 */
static int registry_enumerate(void)
{
	struct kset *kset = THIS_MODULE->mkobj.kobj.kset;
	struct module **pinned;
	struct kobject *kobj;
	unsigned int cap = 0, nr = 0, i;

	if (!kset)
		return -ENODEV;

	spin_lock(&kset->list_lock);
	list_for_each_entry(kobj, &kset->list, entry)
		cap++;
	spin_unlock(&kset->list_lock);

	pinned = kvcalloc(cap, sizeof(*pinned), GFP_KERNEL);
	if (!pinned)
		return -ENOMEM;

	/* Kobjects added since counting are live modules the notifier reports. */
	spin_lock(&kset->list_lock);
	list_for_each_entry(kobj, &kset->list, entry) {
		struct module *mod = container_of(kobj, struct module_kobject, kobj)->mod;

		if (nr == cap)
			break;
		/* Built-in modules have a kobject for their parameters only. */
		if (!mod || mod->state != MODULE_STATE_LIVE || !try_module_get(mod))
			continue;
		pinned[nr++] = mod;
	}
	spin_unlock(&kset->list_lock);

	for (i = 0; i < nr; i++) {
		registry_add_pinned(pinned[i]);
		module_put(pinned[i]);
	}
	kvfree(pinned);
	return 0;
}

static void registry_clear(void)
{
	struct secmap_entry *entry, *tmp;
	LIST_HEAD(doomed);

	spin_lock(&registry_lock);
	list_splice_init(&registry, &doomed);
	spin_unlock(&registry_lock);

	list_for_each_entry_safe(entry, tmp, &doomed, node) {
		list_del(&entry->node);
		secmap_entry_put(entry);
	}
}

/**
 * secmap_registry_init() - start tracking modules
 *
 * The notifier goes first so that no module becomes live unseen between
 * enumeration and registration.
 *
 * Return: 0 or a negative errno.
 */
int secmap_registry_init(void)
{
	int ret;

	ret = register_module_notifier(&secmap_module_nb);
	if (ret)
		return ret;

	ret = registry_enumerate();
	if (ret) {
		unregister_module_notifier(&secmap_module_nb);
		registry_clear();
	}
	return ret;
}

/**
 * secmap_registry_exit() - stop tracking and free every entry
 */
void secmap_registry_exit(void)
{
	unregister_module_notifier(&secmap_module_nb);
	registry_clear();
}
