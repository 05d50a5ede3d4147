// SPDX-License-Identifier: GPL-2.0
/*
 * The event journal and SECMAP_CMD_EVENTS_REPLAY: the latest events, kept
 * as they were sent, so that a listener whose socket overran asks for
 * exactly the ones it lost instead of starting over from a snapshot (and
 * missing every module that came and went in between). Bounded by
 * journal_kb; the oldest events go first, and a replay that starts later
 * than asked tells the listener which are gone.
 */
#include "internal.h"
#include "compat.h"

#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

/* 64 MiB at most: a reader that far behind is better served by a snapshot. */
#define SECMAP_JOURNAL_MAX_KB	65536

static unsigned int journal_kb = 1024;
/* Writable: a smaller journal takes effect at the next event. */
module_param(journal_kb, uint, 0644);
MODULE_PARM_DESC(journal_kb,
		 "memory for replaying lost events, in KiB (0: no journal; at most 65536)");

/**
 * struct secmap_journal_entry - one event as it was sent
 * @node: in the journal, oldest first
 * @seq: its sequence number
 * @len: bytes in @msg
 * @msg: its generic netlink header and attributes
 */
struct secmap_journal_entry {
	struct list_head node;
	u64 seq;
	u32 len;
	u8 msg[];
};

/* Under the registry lock, as event numbering is. */
static LIST_HEAD(journal);
static size_t journal_bytes;

static int journal_bytes_get(char *buf, const struct kernel_param *kp)
{
	size_t bytes;

	secmap_registry_lock();
	bytes = journal_bytes;
	secmap_registry_unlock();
	return sysfs_emit(buf, "%zu\n", bytes);
}

static const struct kernel_param_ops journal_bytes_ops = {
	.get = journal_bytes_get,
};

/* Read-only: what the journal holds now, entries' headers included. */
module_param_cb(journal_bytes, &journal_bytes_ops, NULL, 0444);
MODULE_PARM_DESC(journal_bytes, "memory the event journal uses now, in bytes");

static size_t journal_cap(void)
{
	return (size_t)min_t(unsigned int, READ_ONCE(journal_kb), SECMAP_JOURNAL_MAX_KB) * 1024;
}

static void journal_drop_oldest_locked(void)
{
	struct secmap_journal_entry *e;

	e = list_first_entry(&journal, struct secmap_journal_entry, node);
	list_del(&e->node);
	journal_bytes -= struct_size(e, msg, e->len);
	kfree(e);
}

/**
 * secmap_journal_add_locked() - keep a copy of an event about to be sent
 * @seq: its sequence number
 * @skb: the finished message
 *
 * An event that cannot be kept (no memory, larger than the journal) leaves
 * a hole a replay shows as a gap: the listener then resyncs, as without a
 * journal. Caller holds the registry lock.
 */
void secmap_journal_add_locked(u64 seq, const struct sk_buff *skb)
{
	struct secmap_journal_entry *e;
	size_t len = skb->len - NLMSG_HDRLEN, size = struct_size(e, msg, len);
	size_t cap = journal_cap();

	secmap_registry_assert_held();
	while (!list_empty(&journal) && journal_bytes + size > cap)
		journal_drop_oldest_locked();
	if (size > cap)
		return;
	e = kmalloc(size, GFP_ATOMIC | __GFP_NOWARN);
	if (!e)
		return;
	e->seq = seq;
	e->len = len;
	memcpy(e->msg, skb->data + NLMSG_HDRLEN, len);
	list_add_tail(&e->node, &journal);
	journal_bytes += size;
}

/**
 * secmap_journal_clear() - free the journal, when the module goes
 */
void secmap_journal_clear(void)
{
	secmap_registry_lock();
	while (!list_empty(&journal))
		journal_drop_oldest_locked();
	secmap_registry_unlock();
}

/* The longest message the journal holds from @from on. */
static size_t journal_max_len(u64 from)
{
	struct secmap_journal_entry *e;
	size_t len = 0;

	secmap_registry_lock();
	list_for_each_entry(e, &journal, node)
		if (e->seq >= from)
			len = max_t(size_t, len, e->len);
	secmap_registry_unlock();
	return len;
}

const struct nla_policy secmap_events_replay_policy[SECMAP_A_MODULE_REPLAY_FROM + 1] = {
	[SECMAP_A_MODULE_REPLAY_FROM] = { .type = NLA_U64 },
};

/**
 * secmap_events_replay_start() - check the request, note where to start
 * @cb: dump state; args[0] becomes the first sequence number wanted
 *
 * Return: 0, -EPERM or -EOPNOTSUPP as for MODULE_GET, or -EINVAL without
 * SECMAP_A_MODULE_REPLAY_FROM.
 */
int secmap_events_replay_start(struct netlink_callback *cb)
{
	struct nlattr **attrs = secmap_compat_dump_attrs(cb);
	int ret = secmap_netlink_check_read(cb->skb, cb->nlh, cb->extack);

	if (ret)
		return ret;
	if (!attrs[SECMAP_A_MODULE_REPLAY_FROM]) {
		NL_SET_ERR_MSG(cb->extack, "replay-from is required");
		return -EINVAL;
	}
	cb->args[0] = nla_get_u64(attrs[SECMAP_A_MODULE_REPLAY_FROM]);
	secmap_dump_room(cb, journal_max_len(cb->args[0]));
	return 0;
}

/**
 * secmap_events_replay_dumpit() - the journal's events from args[0] on
 * @skb: buffer for this part of the dump
 * @cb: dump state; args[0] is the next sequence number to send
 *
 * Return: bytes written (more to come), 0 when done, or a negative errno.
 */
int secmap_events_replay_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct secmap_journal_entry *e;
	u64 next = cb->args[0];
	struct nlmsghdr *nlh;

	secmap_registry_lock();
	list_for_each_entry(e, &journal, node) {
		if (e->seq < next)
			continue;
		nlh = nlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				secmap_genl_family.id, e->len, NLM_F_MULTI);
		if (!nlh)
			break;
		memcpy(nlmsg_data(nlh), e->msg, e->len);
		nlmsg_end(skb, nlh);
		next = e->seq + 1;
	}
	secmap_registry_unlock();
	cb->args[0] = next;
	return skb->len;
}
