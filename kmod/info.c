// SPDX-License-Identifier: GPL-2.0
/*
 * SECMAP_CMD_INFO_GET: what the running secmap is and how it tracks
 * modules. Carries no addresses, so anyone may ask.
 */
#include "internal.h"

#include <linux/sched/clock.h>
#include <linux/timekeeping.h>
#include <linux/utsname.h>

/* No request attributes: strict validation rejects any. */
const struct nla_policy secmap_info_get_policy[SECMAP_A_INFO_MAX + 1] = {
};

/**
 * secmap_info_get_doit() - reply with version, generation, release, hook, event seq, clocks
 * @skb: request
 * @info: request attributes
 *
 * Return: 0 or a negative errno.
 */
int secmap_info_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *reply;
	u64 generation, seq, local, mono;
	void *hdr;
	int ret;

	ret = secmap_netlink_check_version(info->nlhdr, info->extack);
	if (ret)
		return ret;
	/* Together, so a client can tell which events a snapshot includes. */
	secmap_registry_lock();
	generation = secmap_registry_generation_locked();
	seq = secmap_events_last_seq_locked();
	secmap_registry_unlock();
	/* After the generation: a snapshot it vouches for holds at this time. */
	local = local_clock();
	mono = ktime_get_ns();

	reply = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!reply)
		return -ENOMEM;
	hdr = genlmsg_put_reply(reply, info, &secmap_genl_family, 0, SECMAP_CMD_INFO_GET);
	if (!hdr ||
	    nla_put_u32(reply, SECMAP_A_INFO_VERSION, SECMAP_GENL_VERSION) ||
	    nla_put_u64_64bit(reply, SECMAP_A_INFO_GENERATION, generation, SECMAP_A_INFO_PAD) ||
	    nla_put_u64_64bit(reply, SECMAP_A_INFO_EVENT_SEQ, seq, SECMAP_A_INFO_PAD) ||
	    nla_put_u64_64bit(reply, SECMAP_A_INFO_TIME_LOCAL_NS, local, SECMAP_A_INFO_PAD) ||
	    nla_put_u64_64bit(reply, SECMAP_A_INFO_TIME_MONO_NS, mono, SECMAP_A_INFO_PAD) ||
	    nla_put_string(reply, SECMAP_A_INFO_RELEASE, init_utsname()->release) ||
	    nla_put_u32(reply, SECMAP_A_INFO_HOOK, secmap_tracking_hook())) {
		nlmsg_free(reply);
		return -EMSGSIZE;
	}
	genlmsg_end(reply, hdr);
	return genlmsg_reply(reply, info);
}
