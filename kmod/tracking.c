// SPDX-License-Identifier: GPL-2.0
/*
 * Keep the registry current and raise events: start-up enumeration through
 * the module kset, the module_load tracepoint (before a module's init runs)
 * and the module notifier (COMING, init done, unload, failed init).
 *
 * A load is stamped when the module becomes COMING, before its parameters
 * are parsed: parameter callbacks run module code, and samples taken there
 * must fall within the load. Its sections are known only later, at the
 * tracepoint, which sends MODULE_NEW with the COMING time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "internal.h"

#include <linux/kobject.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>

static bool use_tracepoint = true;
module_param(use_tracepoint, bool, 0444);
MODULE_PARM_DESC(use_tracepoint,
		 "report loads from the module_load tracepoint, before init (default); 0 falls back to the LIVE notifier");

static struct tracepoint *module_load_tp;
static enum secmap_hook active_hook = SECMAP_HOOK_NOTIFIER;

/* When each module now between COMING and the tracepoint became COMING. */
struct secmap_coming {
	struct list_head node;
	const struct module *mod;
	u64 local_ns;
	u64 mono_ns;
};

static LIST_HEAD(coming_list);
static DEFINE_SPINLOCK(coming_lock);

static void coming_stamp(const struct module *mod)
{
	struct secmap_coming *c = kmalloc(sizeof(*c), GFP_KERNEL);

	/* Without it the load is stamped at the tracepoint, as before. */
	if (!c)
		return;
	c->mod = mod;
	c->local_ns = local_clock();
	c->mono_ns = ktime_get_ns();
	spin_lock(&coming_lock);
	list_add(&c->node, &coming_list);
	spin_unlock(&coming_lock);
}

/* Take @mod's stamp off the list (into @entry, if given); from the tracepoint too. */
static void coming_take(const struct module *mod, struct secmap_entry *entry)
{
	struct secmap_coming *c, *found = NULL;

	spin_lock(&coming_lock);
	list_for_each_entry(c, &coming_list, node) {
		if (c->mod == mod) {
			list_del(&c->node);
			found = c;
			break;
		}
	}
	spin_unlock(&coming_lock);
	if (found && entry) {
		entry->coming_local_ns = found->local_ns;
		entry->coming_mono_ns = found->mono_ns;
	}
	kfree(found);
}

static void coming_clear(void)
{
	struct secmap_coming *c, *tmp;

	spin_lock(&coming_lock);
	list_for_each_entry_safe(c, tmp, &coming_list, node) {
		list_del(&c->node);
		kfree(c);
	}
	spin_unlock(&coming_lock);
}

/**
 * secmap_tracking_hook() - how loads are seen
 *
 * Return: &enum secmap_hook in use.
 */
enum secmap_hook secmap_tracking_hook(void)
{
	return active_hook;
}

/* List @mod and raise MODULE_NEW. A failed capture still costs a sequence
 * number, so listeners see the gap.
 */
static void track_new(const struct module *mod, u8 state, gfp_t gfp)
{
	struct secmap_entry *entry = secmap_capture(mod, state, gfp);
	struct sk_buff *skb = NULL;
	bool added = false;

	coming_take(mod, entry);
	if (entry)
		skb = secmap_event_alloc(SECMAP_CMD_MODULE_NEW_NTF, entry, gfp);
	else
		pr_warn_ratelimited("out of memory, %s not tracked\n", mod->name);

	secmap_registry_lock();
	if (entry)
		added = secmap_registry_add_locked(entry);
	if (added || !entry)
		secmap_event_send_locked(skb, SECMAP_CMD_MODULE_NEW_NTF, entry);
	secmap_registry_unlock();

	if (entry && !added) {
		kfree_skb(skb);
		secmap_entry_put(entry);
	}
}

/* Runs in the loader after sysfs is set up, before init: atomic context. */
static void secmap_probe_module_load(void *data, struct module *mod)
{
	track_new(mod, SECMAP_MODULE_STATE_COMING, GFP_ATOMIC);
}

static void track_live(struct module *mod)
{
	struct secmap_entry *entry;
	struct sk_buff *skb;

	/* Not seen loading (fallback hook, or loading while secmap started). */
	secmap_registry_lock();
	entry = secmap_registry_find_locked(mod);
	secmap_registry_unlock();
	if (!entry)
		track_new(mod, SECMAP_MODULE_STATE_COMING, GFP_KERNEL);

	skb = secmap_event_alloc(SECMAP_CMD_MODULE_LIVE_NTF, NULL, GFP_KERNEL);
	secmap_registry_lock();
	entry = secmap_registry_find_locked(mod);
	if (entry) {
		secmap_registry_set_state_locked(entry, SECMAP_MODULE_STATE_LIVE);
		secmap_event_send_locked(skb, SECMAP_CMD_MODULE_LIVE_NTF, entry);
		skb = NULL;
	}
	secmap_registry_unlock();
	kfree_skb(skb);
}

static void track_gone(struct module *mod)
{
	struct secmap_entry *entry;
	struct sk_buff *skb;

	skb = secmap_event_alloc(SECMAP_CMD_MODULE_GONE_NTF, NULL, GFP_KERNEL);
	secmap_registry_lock();
	entry = secmap_registry_find_locked(mod);
	if (entry) {
		secmap_registry_del_locked(entry);
		secmap_event_send_locked(skb, SECMAP_CMD_MODULE_GONE_NTF, entry);
		skb = NULL;
	}
	secmap_registry_unlock();
	kfree_skb(skb);
	if (entry)
		secmap_entry_put(entry);
}

static int secmap_module_notify(struct notifier_block *nb, unsigned long state, void *data)
{
	struct module *mod = data;

	switch (state) {
	case MODULE_STATE_COMING:
		if (module_load_tp)
			coming_stamp(mod);
		break;
	case MODULE_STATE_LIVE:
		/* A concurrent rmmod cannot free @mod while we hold a reference. */
		if (try_module_get(mod)) {
			track_live(mod);
			module_put(mod);
		}
		break;
	case MODULE_STATE_GOING:
		/* A load that failed before the tracepoint leaves its stamp. */
		coming_take(mod, NULL);
		track_gone(mod);
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
 * are left to the hooks, attached before this runs.
 */
static int enumerate_loaded(void)
{
	struct kset *kset = THIS_MODULE->mkobj.kobj.kset;
	unsigned int cap = 0, nr = 0, i;
	struct module **pinned;
	struct kobject *kobj;

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
		struct secmap_entry *entry;
		bool added = false;

		entry = secmap_capture(pinned[i], SECMAP_MODULE_STATE_LIVE, GFP_KERNEL);
		if (entry) {
			secmap_registry_lock();
			added = secmap_registry_add_locked(entry);
			secmap_registry_unlock();
			if (!added)
				secmap_entry_put(entry);
		} else {
			pr_warn("out of memory, %s not tracked\n", pinned[i]->name);
		}
		module_put(pinned[i]);
	}
	kvfree(pinned);
	return 0;
}

static void find_module_load_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "module_load"))
		*(struct tracepoint **)priv = tp;
}

static void attach_load_hook(void)
{
	const char *why = "disabled by use_tracepoint=0";
	int ret;

	if (use_tracepoint) {
		for_each_kernel_tracepoint(find_module_load_tp, &module_load_tp);
		why = "tracepoint not found";
	}
	if (module_load_tp) {
		ret = tracepoint_probe_register(module_load_tp, secmap_probe_module_load, NULL);
		if (!ret) {
			active_hook = SECMAP_HOOK_TRACEPOINT;
			return;
		}
		why = "probe registration failed";
		module_load_tp = NULL;
	}
	pr_info("not using the module_load tracepoint (%s): MODULE_NEW comes after init, from the LIVE notifier\n",
		why);
}

static void detach_load_hook(void)
{
	if (!module_load_tp)
		return;
	tracepoint_probe_unregister(module_load_tp, secmap_probe_module_load, NULL);
	/* No probe may still be running when the module text goes away. */
	tracepoint_synchronize_unregister();
	module_load_tp = NULL;
}

/**
 * secmap_tracking_init() - start tracking modules
 *
 * The hooks go first so that no module loads unseen between enumeration
 * and registration; duplicates are dropped by the registry.
 *
 * Return: 0 or a negative errno.
 */
int secmap_tracking_init(void)
{
	int ret;

	ret = register_module_notifier(&secmap_module_nb);
	if (ret)
		return ret;
	attach_load_hook();

	ret = enumerate_loaded();
	if (ret) {
		secmap_tracking_exit();
		secmap_registry_clear();
	}
	return ret;
}

/**
 * secmap_tracking_exit() - detach every hook; waits for running ones
 */
void secmap_tracking_exit(void)
{
	detach_load_hook();
	unregister_module_notifier(&secmap_module_nb);
	coming_clear();
}
