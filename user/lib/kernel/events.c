// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libsecmap's events: subscribing on a socket of their own, reading them
 * in order, and never losing one silently: the kernel's journal gives back
 * what an overrun dropped, and when it cannot, a resync re-dumps.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/secmap.h>

#include "client.h"


/*
 * SECMAP_CMD_EVENTS_SUBSCRIBE, sent on the events socket itself: the kernel
 * lists the socket a request comes from. Events that beat the ACK are
 * dropped: a dump made after subscribing includes them.
 */
static int subscribe_socket(struct secmap_client *c, struct mnl_socket *nl)
{
	struct recv_ctx ctx = { .client = c };
	struct nlmsghdr *nlh;

	nlh = client_put_request(c, c->family, NLM_F_ACK, SECMAP_CMD_EVENTS_SUBSCRIBE,
			       client_request_version(c));
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	return client_run_replies(nl, &c->ev_buf, &c->ev_size, nlh->nlmsg_seq, client_cb_noop, &ctx);
}

SECMAP_EXPORT int secmap_client_subscribe(struct secmap_client *client)
{
	int fd, flags, rcvbuf = SECMAP_EVENT_RCVBUF, one = 1, err;
	SECMAP_OPTS(secmap_info, info);
	struct mnl_socket *nl;
	unsigned int group;

	if (!client)
		return libsecmap_err(-EINVAL);
	if (client->ev_nl)
		return 0;
	/* A secmap too old to send events. */
	if (!client->mcgrp_events)
		return libsecmap_err(-EOPNOTSUPP);
	if (!client->ev_buf) {
		client->ev_buf = malloc(SECMAP_RECV_SIZE);
		if (!client->ev_buf)
			return libsecmap_err(-ENOMEM);
		client->ev_size = SECMAP_RECV_SIZE;
	}
	nl = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	if (!nl)
		return libsecmap_err(-errno);
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail_errno;
	fd = mnl_socket_get_fd(nl);
	/* Errors without our request echoed back; old kernels do without. */
	if (mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one)) < 0 &&
	    errno != ENOPROTOOPT)
		goto fail_errno;
	/* Best effort: capped by net.core.rmem_max; a resync recovers the rest. */
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	/* -EPERM without CAP_SYSLOG (or with kptr_restrict=2), as for a dump. */
	err = subscribe_socket(client, nl);
	if (err)
		goto fail;
	group = client->mcgrp_events;
	if (mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)) < 0)
		goto fail_errno;
	/* Readiness comes from poll(); a spurious wakeup must not block. */
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		goto fail_errno;
	/*
	 * Joined: from here on nothing is missed. Events up to now count as
	 * before the subscription, so a loss is measured from here.
	 */
	err = secmap_client_info(client, &info);
	if (err)
		goto fail;
	client->ev_nl = nl;
	client->ev_len = client->ev_off = 0;
	client_events_covered(&client->ev_state, info.event_seq);
	return 0;
fail_errno:
	err = -errno;
fail:
	mnl_socket_close(nl);
	return libsecmap_err(err);
}

SECMAP_EXPORT int secmap_client_fd(const struct secmap_client *client)
{
	if (!client)
		return libsecmap_err(-EINVAL);
	if (!client->ev_nl)
		return libsecmap_err(-EBADF);
	return mnl_socket_get_fd(client->ev_nl);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The next event left in the last datagram: 1 if found, 0 if none, or -errno. */
static int next_buffered_event(struct secmap_client *c, struct secmap_event **event)
{
	const struct nlmsghdr *nlh;
	size_t left, step;
	int err;

	while (c->ev_off < c->ev_len) {
		nlh = (const struct nlmsghdr *)(c->ev_buf + c->ev_off);
		left = c->ev_len - c->ev_off;
		if (!libsecmap_nlmsg_ok(nlh, left)) {
			c->ev_off = c->ev_len;
			return -EPROTO;
		}
		step = MNL_ALIGN(nlh->nlmsg_len);
		c->ev_off += step < left ? step : left;
		/* NOOPs and anything else not from our family. */
		if (nlh->nlmsg_type != c->family)
			continue;
		err = libsecmap_parse_event_msg(nlh, &c->ev_state, event);
		if (err)
			return err;
		if (*event)
			return 1;
	}
	return 0;
}

/*
 * After an overrun the kernel drops every new event, without telling, until
 * the queue is empty. Empty it before re-dumping: the dump includes what
 * was queued.
 */
static void drain_events(int fd)
{
	/* Bounded, in case events arrive as fast as they are discarded. */
	int left = 1 << 16;

	while (left-- > 0) {
		if (recv(fd, NULL, 0, MSG_DONTWAIT | MSG_TRUNC) >= 0)
			continue;
		if (errno != EINTR && errno != ENOBUFS)
			break;
	}
}

/*
 * Events were lost after @last_seq, the last one handed out (or the start
 * subscribing set): re-dump and hand out the snapshot as one event; the
 * events it includes will be skipped. If that fails, the loss stays
 * pending, so the next event tries again. -EBUSY: modules kept changing
 * during every try. @gone: how many events are lost for good, if known
 * (the journal had the rest), else 0.
 */
static int client_resync(struct secmap_client *c, uint64_t last_seq, uint64_t gone,
			 struct secmap_event **event)
{
	struct secmap_snapshot *snap;
	struct secmap_event *ev = NULL;
	uint64_t covered;
	int err;

	err = client_dump_covered(c, &snap, &covered);
	if (!err) {
		ev = calloc(1, sizeof(*ev));
		if (!ev) {
			secmap_snapshot_free(snap);
			err = -ENOMEM;
		}
	}
	if (err) {
		c->ev_state.last_seq = last_seq;
		c->ev_state.overrun = true;
		/* -EAGAIN from next_event means "nothing yet". */
		return err == -EAGAIN ? -EBUSY : err;
	}
	ev->type = SECMAP_EVENT_RESYNC;
	ev->seq = covered;
	ev->time_local_ns = snap->time_local_ns;
	ev->time_mono_ns = snap->time_mono_ns;
	/* At least one was lost, even when the numbers cannot say how many. */
	ev->lost = gone ? gone : covered > last_seq ? covered - last_seq : 1;
	ev->snapshot = snap;
	client_events_covered(&c->ev_state, covered);
	*event = ev;
	return 0;
}

/* A journal far larger than any the kernel keeps: a bound, whatever it sends. */
#define SECMAP_REPLAY_MAX_EVENTS (1u << 20)

/* Append @ev to @ctx's events: 0, or -errno and @ev freed. */
static int push_event(struct recv_ctx *ctx, struct secmap_event *ev)
{
	struct secmap_event **evs;

	if (ctx->nr_evs >= SECMAP_REPLAY_MAX_EVENTS) {
		secmap_event_free(ev);
		return -E2BIG;
	}
	evs = libsecmap_grow(ctx->evs, &ctx->cap_evs, ctx->nr_evs, sizeof(*evs), 64);
	if (!evs) {
		secmap_event_free(ev);
		return -ENOMEM;
	}
	ctx->evs = evs;
	ctx->evs[ctx->nr_evs++] = ev;
	return 0;
}

static int replay_cb(const struct nlmsghdr *nlh, void *data)
{
	struct recv_ctx *ctx = data;
	struct libsecmap_event_state fresh = { 0 };
	struct secmap_event *ev = NULL;
	int err = -EPROTO;

	if (nlh->nlmsg_type == ctx->client->family)
		err = libsecmap_parse_event_msg(nlh, &fresh, &ev);
	if (!err && ev)
		err = push_event(ctx, ev);
	if (err) {
		ctx->err = err;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

/* Whether @evs are the events right after @last_seq, each once, in order. */
static bool replay_complete(struct secmap_event **evs, size_t n, uint64_t last_seq)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (evs[i]->seq != last_seq + 1 + i)
			return false;
	return n > 0;
}

/*
 * Events were lost after @last_seq; @seen (or NULL) is the one that showed
 * it. Ask the kernel's journal for every event since: if it has them all,
 * they are handed out in order as if never lost, and the socket's copies
 * are skipped. Else, or on a kernel without a journal, a resync.
 */
static int client_replay(struct secmap_client *c, uint64_t last_seq, struct secmap_event *seen,
			 struct secmap_event **event)
{
	struct recv_ctx ctx = { .client = c };
	struct nlmsghdr *nlh;
	uint64_t gone = 0;
	int err;

	nlh = client_put_request(c, c->family, NLM_F_DUMP, SECMAP_CMD_EVENTS_REPLAY,
			       client_request_version(c));
	mnl_attr_put_u64(nlh, SECMAP_A_MODULE_REPLAY_FROM, last_seq + 1);
	err = client_run(c, nlh, replay_cb, &ctx);
	/* The event that showed the loss, when the journal ends before it. */
	if (!err && seen && (!ctx.nr_evs || ctx.evs[ctx.nr_evs - 1]->seq < seen->seq)) {
		err = push_event(&ctx, seen);
		seen = NULL;
	}
	secmap_event_free(seen);
	if (err || !replay_complete(ctx.evs, ctx.nr_evs, last_seq)) {
		/* Events before the journal's first are gone; the snapshot has the rest. */
		if (!err && ctx.nr_evs && ctx.evs[0]->seq > last_seq + 1)
			gone = ctx.evs[0]->seq - last_seq - 1;
		client_free_events(ctx.evs, 0, ctx.nr_evs);
		return client_resync(c, last_seq, gone, event);
	}
	c->replay = ctx.evs;
	c->nr_replay = ctx.nr_evs;
	c->replay_off = 1;
	c->replayed += ctx.nr_evs;
	client_events_covered(&c->ev_state, ctx.evs[ctx.nr_evs - 1]->seq);
	*event = ctx.evs[0];
	return 0;
}

/* The next event the journal gave back: 1, or 0 when none is left. */
static int next_replayed_event(struct secmap_client *c, struct secmap_event **event)
{
	if (c->replay_off < c->nr_replay) {
		*event = c->replay[c->replay_off++];
		return 1;
	}
	free(c->replay);
	c->replay = NULL;
	c->nr_replay = c->replay_off = 0;
	return 0;
}

SECMAP_EXPORT uint64_t secmap_client_nr_replayed(const struct secmap_client *client)
{
	return client ? client->replayed : 0;
}

SECMAP_EXPORT int secmap_client_next_event(struct secmap_client *client,
					   struct secmap_event **event, int timeout_ms)
{
	struct pollfd pfd;
	int64_t start;
	ssize_t n;
	int ret, wait;

	if (!client || !event)
		return libsecmap_err(-EINVAL);
	*event = NULL;
	if (!client->ev_nl)
		return libsecmap_err(-EBADF);
	start = now_ms();
	pfd.fd = mnl_socket_get_fd(client->ev_nl);
	pfd.events = POLLIN;
	for (;;) {
		uint64_t last = client->ev_state.last_seq;

		if (next_replayed_event(client, event))
			return 0;
		ret = next_buffered_event(client, event);
		if (ret < 0)
			return libsecmap_err(ret);
		if (ret && secmap_event_lost(*event)) {
			struct secmap_event *seen = *event;

			*event = NULL;
			ret = client_replay(client, last, seen, event);
			return ret ? libsecmap_err(ret) : 0;
		}
		if (ret)
			return 0;

		/*
		 * Without a timeout the socket (non-blocking) is asked directly:
		 * a recorder drains after each wakeup, and a poll() before
		 * every receive was a third of its system calls.
		 */
		if (timeout_ms) {
			wait = timeout_ms;
			if (timeout_ms > 0) {
				int64_t left = timeout_ms - (now_ms() - start);

				wait = left > 0 ? (int)left : 0;
			}
			ret = poll(&pfd, 1, wait);
			if (ret < 0)
				return libsecmap_err(-errno);
			if (ret == 0)
				return libsecmap_err(-EAGAIN);
		}
		n = client_event_recv(pfd.fd, &client->ev_buf, &client->ev_size);
		if (n == -EMSGSIZE) {
			/* Cut: the journal has it whole (and a resync follows if not). */
			client->ev_len = client->ev_off = 0;
			ret = client_replay(client, client->ev_state.last_seq, NULL, event);
			return ret ? libsecmap_err(ret) : 0;
		}
		if ((n == -EAGAIN || n == -EWOULDBLOCK) && !timeout_ms)
			return libsecmap_err(-EAGAIN);
		if (n == -EAGAIN || n == -EWOULDBLOCK || n == -EINTR)
			continue;
		if (n == -ENOBUFS) {
			client->ev_len = client->ev_off = 0;
			drain_events(pfd.fd);
			ret = client_replay(client, client->ev_state.last_seq, NULL, event);
			return ret ? libsecmap_err(ret) : 0;
		}
		if (n < 0)
			return libsecmap_err((int)n);
		client->ev_len = (size_t)n;
		client->ev_off = 0;
	}
}

