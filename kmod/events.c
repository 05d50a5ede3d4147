// SPDX-License-Identifier: GPL-2.0
/*
 * Notifications on the "events" multicast group: MODULE_NEW, MODULE_LIVE,
 * MODULE_GONE, each with a sequence number and two timestamps, for
 * subscribed sockets only (subscribe.c).
 */
#include "internal.h"
#include "compat.h"

#include <linux/sched/clock.h>
#include <linux/timekeeping.h>

/* Both under the registry lock, so sequence numbers follow registry changes. */
static u64 event_seq;
static bool events_on;

/**
 * secmap_events_enable() - start or stop sending events
 * @on: true once the family is registered, false before it goes away
 */
void secmap_events_enable(bool on)
{
	secmap_registry_lock();
	/* Read without the lock by secmap_event_alloc(). */
	WRITE_ONCE(events_on, on);
	secmap_registry_unlock();
}

/**
 * secmap_events_last_seq_locked() - sequence number of the last event
 *
 * Read with the registry generation, it tells which events a snapshot
 * taken at that generation already includes.
 *
 * Return: 0 before the first event. Caller holds the registry lock.
 */
u64 secmap_events_last_seq_locked(void)
{
	secmap_registry_assert_held();
	return event_seq;
}

/**
 * secmap_event_alloc() - a buffer large enough for one event
 * @cmd: the SECMAP_CMD_*_NTF the buffer is for
 * @entry: the module for MODULE_NEW (which carries sections), else NULL
 * @gfp: allocation flags
 *
 * Allocated before taking the registry lock when the caller may sleep.
 *
 * Return: the buffer, or NULL if nobody subscribed or memory is short.
 */
struct sk_buff *secmap_event_alloc(u8 cmd, const struct secmap_entry *entry, gfp_t gfp)
{
	size_t size = nla_total_size(MODULE_NAME_LEN) + nla_total_size(sizeof(u32)) +
		      nla_total_size(3 * nla_total_size_64bit(sizeof(u64)));

	if (!READ_ONCE(events_on) || !secmap_subscribers_any())
		return NULL;
	if (cmd == SECMAP_CMD_MODULE_NEW_NTF && entry)
		size += secmap_module_msg_size(entry, false);
	return genlmsg_new(size, gfp);
}

/*
 * A load happened when the module became COMING, before its parameters were
 * parsed (their callbacks run module code): the time stamped then, when
 * there is one. Anything else happens now.
 */
static int put_event(struct sk_buff *skb, u64 seq, u8 cmd, const struct secmap_entry *entry)
{
	struct nlattr *nest = nla_nest_start(skb, SECMAP_A_MODULE_EVENT);
	bool stamped = cmd == SECMAP_CMD_MODULE_NEW_NTF && entry->coming_local_ns;
	u64 local = stamped ? entry->coming_local_ns : local_clock();
	u64 mono = stamped ? entry->coming_mono_ns : ktime_get_ns();

	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, SECMAP_A_EVENT_SEQ, seq, SECMAP_A_EVENT_PAD) ||
	    nla_put_u64_64bit(skb, SECMAP_A_EVENT_TIME_LOCAL_NS, local, SECMAP_A_EVENT_PAD) ||
	    nla_put_u64_64bit(skb, SECMAP_A_EVENT_TIME_MONO_NS, mono, SECMAP_A_EVENT_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * secmap_event_send_locked() - number, stamp and send one event
 * @skb: from secmap_event_alloc(), consumed; NULL if none could be had
 * @cmd: SECMAP_CMD_MODULE_NEW_NTF, _LIVE_NTF or _GONE_NTF
 * @entry: the module (NULL only when it could not even be captured)
 *
 * Every event takes a sequence number, sent or not, so that a listener
 * sees a gap where one was lost. Caller holds the registry lock and has
 * already applied the change, so a snapshot taken at the generation
 * secmap_events_last_seq_locked() is read with includes this event.
 */
void secmap_event_send_locked(struct sk_buff *skb, u8 cmd, const struct secmap_entry *entry)
{
	u64 seq;
	int ret;
	void *hdr;

	secmap_registry_assert_held();
	seq = ++event_seq;

	/*
	 * The caller allocated before taking the lock, maybe before a socket
	 * subscribed: that socket has already been told this number is to
	 * come (INFO), so the event must reach it.
	 */
	if (!skb && entry)
		skb = secmap_event_alloc(cmd, entry, GFP_ATOMIC);
	if (!skb)
		return;
	if (!events_on || !entry)
		goto drop;

	hdr = genlmsg_put(skb, 0, 0, &secmap_genl_family, 0, cmd);
	if (!hdr)
		goto drop;
	if (cmd == SECMAP_CMD_MODULE_NEW_NTF)
		ret = secmap_module_msg_fill(skb, entry, !secmap_addrs_hidden_from_all(), false);
	else
		ret = nla_put_string(skb, SECMAP_A_MODULE_NAME, entry->name) ?:
		      nla_put_u32(skb, SECMAP_A_MODULE_STATE, READ_ONCE(entry->state));
	if (ret || put_event(skb, seq, cmd, entry))
		goto drop;
	genlmsg_end(skb, hdr);
	secmap_journal_add_locked(seq, skb);
	secmap_compat_multicast(&secmap_genl_family, skb, SECMAP_MCGRP_EVENTS_ID);
	return;

drop:
	nlmsg_free(skb);
}
