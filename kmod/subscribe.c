// SPDX-License-Identifier: GPL-2.0
/*
 * SECMAP_CMD_EVENTS_SUBSCRIBE and the list of sockets events go to.
 *
 * Events carry kernel addresses, so receiving them needs what reading them
 * with MODULE_GET needs. The genetlink core can gate a multicast group only
 * on CAP_NET_ADMIN or CAP_SYS_ADMIN, and family->bind cannot refuse, so a
 * socket asks first with this command, which checks like MODULE_GET and
 * lists the socket, then joins the "events" group. Only listed sockets
 * receive events (compat.h); a socket is unlisted when it is closed.
 */
#include "internal.h"
#include "compat.h"

#include <linux/notifier.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

/* A few monitors and recorders at a time; a bound on kernel memory. */
#define SECMAP_MAX_SUBSCRIBERS	64

/**
 * struct secmap_subscriber - a socket allowed to receive events
 * @node: in the subscribers list
 * @sk: the socket; it stays allocated until its NETLINK_URELEASE, which
 *	unlists it first
 * @portid: its port, to unlist it on NETLINK_URELEASE and to unicast to it
 */
struct secmap_subscriber {
	struct list_head node;
	struct sock *sk;
	u32 portid;
};

/* Taken inside the registry lock when events are sent: atomic context. */
static DEFINE_SPINLOCK(subscribers_lock);
static LIST_HEAD(subscribers);
static unsigned int nr_subscribers;

/* No request attributes: strict validation rejects any. */
const struct nla_policy secmap_events_subscribe_policy[SECMAP_A_MODULE_MAX + 1] = {
};

static struct secmap_subscriber *find_locked(const struct sock *sk)
{
	struct secmap_subscriber *sub;

	lockdep_assert_held(&subscribers_lock);
	list_for_each_entry(sub, &subscribers, node)
		if (sub->sk == sk)
			return sub;
	return NULL;
}

/**
 * secmap_events_subscribe_doit() - let the requesting socket receive events
 * @skb: request; NETLINK_CB(skb).sk is the requesting socket
 * @info: request attributes
 *
 * Subscribing twice is harmless.
 *
 * Return: 0, -EPERM, -ENOSPC when too many sockets are subscribed, or
 * -ENOMEM; with an extack message.
 */
int secmap_events_subscribe_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct secmap_subscriber *sub;
	int ret;

	ret = secmap_netlink_check_read(skb, info->nlhdr, info->extack);
	if (ret)
		return ret;

	sub = kzalloc(sizeof(*sub), GFP_KERNEL);
	if (!sub)
		return -ENOMEM;
	sub->sk = NETLINK_CB(skb).sk;
	sub->portid = info->snd_portid;

	spin_lock(&subscribers_lock);
	if (find_locked(sub->sk)) {
		ret = 0;
	} else if (nr_subscribers >= SECMAP_MAX_SUBSCRIBERS) {
		NL_SET_ERR_MSG(info->extack, "too many event subscribers");
		ret = -ENOSPC;
	} else {
		list_add_tail(&sub->node, &subscribers);
		WRITE_ONCE(nr_subscribers, nr_subscribers + 1);
		sub = NULL;
		ret = 0;
	}
	spin_unlock(&subscribers_lock);
	kfree(sub);
	return ret;
}

/**
 * secmap_subscribers_any() - is any socket subscribed?
 *
 * Return: true if events have somewhere to go.
 */
bool secmap_subscribers_any(void)
{
	return READ_ONCE(nr_subscribers) != 0;
}

/**
 * secmap_subscribers_skip() - netlink filter: is @dsk not subscribed?
 * @dsk: a member of the events group
 * @skb: the event
 * @data: unused
 *
 * Return: nonzero to skip @dsk.
 */
int secmap_subscribers_skip(struct sock *dsk, struct sk_buff *skb, void *data)
{
	bool listed;

	spin_lock(&subscribers_lock);
	listed = find_locked(dsk);
	spin_unlock(&subscribers_lock);
	return !listed;
}

/**
 * secmap_subscribers_unicast() - send a copy of @skb to each subscriber
 * @skb: the event; consumed
 *
 * For kernels that cannot filter a multicast group (compat.h). Sockets
 * whose queue is full get ENOBUFS on their next read, as with multicast.
 */
void secmap_subscribers_unicast(struct sk_buff *skb)
{
	struct secmap_subscriber *sub;
	struct sk_buff *copy;

	spin_lock(&subscribers_lock);
	list_for_each_entry(sub, &subscribers, node) {
		/*
		 * Closing: its port may already be free for another socket
		 * to bind, so sending by port could reach a stranger. (Left:
		 * the few instructions in netlink_release() between freeing
		 * the port and marking the socket dead; 6.1 exports no way to
		 * queue to a socket rather than a port.)
		 */
		if (sock_flag(sub->sk, SOCK_DEAD))
			continue;
		/* A subscriber missing this one sees the sequence gap. */
		copy = skb_clone(skb, GFP_ATOMIC);
		if (!copy)
			continue;
		/* MSG_DONTWAIT: never sleeps, so safe under the lock. */
		nlmsg_unicast(init_net.genl_sock, copy, sub->portid);
	}
	spin_unlock(&subscribers_lock);
	consume_skb(skb);
}

/*
 * Unlist a socket as it is closed, before its memory can be reused. Its
 * port was freed just before, and may already belong to a new socket,
 * maybe subscribed too: the one closing is the one marked dead.
 */
static int secmap_subscribers_release(struct notifier_block *nb, unsigned long event,
				      void *ptr)
{
	const struct netlink_notify *n = ptr;
	struct secmap_subscriber *sub, *tmp;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !net_eq(n->net, &init_net))
		return NOTIFY_DONE;

	spin_lock(&subscribers_lock);
	list_for_each_entry_safe(sub, tmp, &subscribers, node) {
		if (sub->portid == n->portid && sock_flag(sub->sk, SOCK_DEAD)) {
			list_del(&sub->node);
			WRITE_ONCE(nr_subscribers, nr_subscribers - 1);
			kfree(sub);
		}
	}
	spin_unlock(&subscribers_lock);
	return NOTIFY_DONE;
}

static struct notifier_block secmap_subscribers_nb = {
	.notifier_call = secmap_subscribers_release,
};

/**
 * secmap_subscribers_init() - follow socket releases
 *
 * Return: 0 or a negative errno.
 */
int secmap_subscribers_init(void)
{
	return netlink_register_notifier(&secmap_subscribers_nb);
}

/**
 * secmap_subscribers_exit() - forget every subscriber
 *
 * Called once the family is unregistered, so no new subscriber can come.
 */
void secmap_subscribers_exit(void)
{
	struct secmap_subscriber *sub, *tmp;

	netlink_unregister_notifier(&secmap_subscribers_nb);
	spin_lock(&subscribers_lock);
	list_for_each_entry_safe(sub, tmp, &subscribers, node) {
		list_del(&sub->node);
		kfree(sub);
	}
	WRITE_ONCE(nr_subscribers, 0);
	spin_unlock(&subscribers_lock);
}
