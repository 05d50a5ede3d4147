// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * libsecmap's netlink client: the request socket, the family and its
 * groups, and the requests (dump, get one module, info). The events side
 * is events.c; message parsing, messages.c.
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



/* *@buf made room for @len bytes (whole pages); 0 or -ENOMEM. */
static int grow_buf(char **buf, size_t *size, size_t len)
{
	size_t want = (len + 4095) & ~(size_t)4095;
	char *p;

	if (len <= *size)
		return 0;
	p = realloc(*buf, want);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*size = want;
	return 0;
}

/*
 * One datagram into @buf: its full length even when cut to @size (netlink
 * reports it under MSG_TRUNC), or -errno. @from_kernel: not from another
 * process, which the callers drop.
 */
static ssize_t recv_one(int fd, char *buf, size_t size, bool *from_kernel)
{
	struct sockaddr_nl addr;
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr msg = {
		.msg_name = &addr,
		.msg_namelen = sizeof(addr),
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	ssize_t n;

	n = recvmsg(fd, &msg, MSG_TRUNC);
	if (n < 0)
		return -errno;
	*from_kernel = msg.msg_namelen == sizeof(addr) && addr.nl_pid == 0;
	return n;
}

/*
 * Receive one datagram into *@buf, first growing it to the datagram's size.
 * Datagrams not sent by the kernel are dropped. Returns its length or
 * -errno (-EAGAIN on an empty non-blocking socket).
 */
static ssize_t sock_recv(int fd, char **buf, size_t *size)
{
	bool from_kernel;
	ssize_t n;
	int err;

	for (;;) {
		n = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC);
		if (n < 0)
			return -errno;
		err = grow_buf(buf, size, (size_t)n);
		if (err)
			return err;
		n = recv_one(fd, *buf, *size, &from_kernel);
		if (n > 0 && (size_t)n > *size)
			return -EMSGSIZE;
		if (n < 0 || from_kernel)
			return n;
	}
}

/*
 * One event datagram, straight into @buf: peeking at each one's size
 * first cost a recorder a system call per event. One longer than @buf (a
 * module of some thousand sections) arrives cut: -EMSGSIZE, with @buf
 * grown to hold it, and the caller has the journal hand it out again.
 */
ssize_t client_event_recv(int fd, char **buf, size_t *size)
{
	bool from_kernel;
	ssize_t n;
	int err;

	for (;;) {
		n = recv_one(fd, *buf, *size, &from_kernel);
		if (n > 0 && (size_t)n > *size) {
			err = grow_buf(buf, size, (size_t)n);
			return err ? err : -EMSGSIZE;
		}
		if (n < 0 || from_kernel)
			return n;
	}
}

static void client_socket_close(struct secmap_client *c)
{
	if (c->nl)
		mnl_socket_close(c->nl);
	c->nl = NULL;
}

static int client_socket_open(struct secmap_client *c)
{
	int one = 1, err;

	c->nl = mnl_socket_open2(NETLINK_GENERIC, SOCK_CLOEXEC);
	if (!c->nl)
		return -errno;
	if (mnl_socket_bind(c->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	/*
	 * EXT_ACK lets the kernel explain an error; CAP_ACK keeps it from
	 * echoing our request back in error messages. Kernels too old to know
	 * them still work, so only other failures are fatal.
	 */
	if (mnl_socket_setsockopt(c->nl, NETLINK_EXT_ACK, &one, sizeof(one)) < 0 &&
	    errno != ENOPROTOOPT)
		goto fail;
	if (mnl_socket_setsockopt(c->nl, NETLINK_CAP_ACK, &one, sizeof(one)) < 0 &&
	    errno != ENOPROTOOPT)
		goto fail;
	c->portid = mnl_socket_get_portid(c->nl);
	return 0;
fail:
	err = -errno;
	client_socket_close(c);
	return err;
}

int client_cb_noop(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	return MNL_CB_OK;
}

static int ctl_error(const struct nlmsghdr *nlh, void *data)
{
	struct recv_ctx *ctx = data;
	const struct nlmsgerr *e;

	ctx->done = true;
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*e)) {
		ctx->err = -EPROTO;
		return MNL_CB_ERROR;
	}
	e = mnl_nlmsg_get_payload(nlh);
	if (e->error > 0 || e->error < -4095) {
		ctx->err = -EPROTO;
		return MNL_CB_ERROR;
	}
	if (e->error && !ctx->err)
		ctx->err = e->error;
	return MNL_CB_STOP;
}

static int ctl_done(const struct nlmsghdr *nlh, void *data)
{
	struct recv_ctx *ctx = data;
	int status;

	ctx->done = true;
	/* A dump that failed after it started reports its errno here. */
	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(status)) {
		memcpy(&status, mnl_nlmsg_get_payload(nlh), sizeof(status));
		if (status < 0 && status >= -4095 && !ctx->err)
			ctx->err = status;
	}
	return MNL_CB_STOP;
}

static int ctl_overrun(const struct nlmsghdr *nlh, void *data)
{
	struct recv_ctx *ctx = data;

	(void)nlh;
	ctx->err = -ENOBUFS;
	return MNL_CB_ERROR;
}

/* Not const: mnl_cb_run2() takes a plain pointer. */
static mnl_cb_t ctl_cbs[] = {
	[NLMSG_NOOP]	= client_cb_noop,
	[NLMSG_ERROR]	= ctl_error,
	[NLMSG_DONE]	= ctl_done,
	[NLMSG_OVERRUN]	= ctl_overrun,
};

int libsecmap_nlmsgs_ok(const void *buf, size_t len)
{
	const struct nlmsghdr *nlh = buf;

	while (len >= sizeof(*nlh)) {
		if (!libsecmap_nlmsg_ok(nlh, len))
			return -EPROTO;
		if (MNL_ALIGN(nlh->nlmsg_len) >= len)
			return 0;
		len -= MNL_ALIGN(nlh->nlmsg_len);
		nlh = (const struct nlmsghdr *)((const char *)nlh + MNL_ALIGN(nlh->nlmsg_len));
	}
	return 0;
}

/* Feed every datagram of @nl to @cb until the exchange @seq ends. */
int client_run_replies(struct mnl_socket *nl, char **buf, size_t *size, unsigned int seq,
		       mnl_cb_t cb, struct recv_ctx *ctx)
{
	ssize_t n;
	int ret;

	for (;;) {
		n = sock_recv(mnl_socket_get_fd(nl), buf, size);
		if (n == -EINTR)
			continue;
		if (n < 0)
			return n;
		/* mnl_cb_run2() would hand on a message longer than 2^31 bytes. */
		if (n == 0 || libsecmap_nlmsgs_ok(*buf, n))
			return -EPROTO;
		ret = mnl_cb_run2(*buf, n, seq, mnl_socket_get_portid(nl), cb, ctx,
				  ctl_cbs, ARRAY_SIZE(ctl_cbs));
		if (ret == MNL_CB_ERROR) {
			if (ctx->err)
				return ctx->err;
			/* From libmnl itself: NLM_F_DUMP_INTR, or a stray/bad message. */
			return errno == EINTR ? -EINTR : -EPROTO;
		}
		if (ret == MNL_CB_STOP)
			return ctx->err;
	}
}

/*
 * Send @req and feed every reply to @cb until the exchange ends. Bailing
 * out mid-exchange leaves the rest queued on the socket, where it would
 * confuse the next request: start over on a new one.
 */
int client_run(struct secmap_client *c, struct nlmsghdr *req, mnl_cb_t cb,
	       struct recv_ctx *ctx)
{
	int err;

	if (!c->nl) {
		err = client_socket_open(c);
		if (err)
			return err;
	}
	if (mnl_socket_sendto(c->nl, req, req->nlmsg_len) < 0)
		err = -errno;
	else
		/* Replies land in the buffer @req lives in: read its seq first. */
		err = client_run_replies(c->nl, &c->buf, &c->buf_size, req->nlmsg_seq, cb, ctx);
	if (!ctx->done)
		client_socket_close(c);
	return err;
}

/*
 * The family version to ask for: ours, or the module's if it is older, as
 * it refuses any version above its own.
 */
uint8_t client_request_version(const struct secmap_client *c)
{
	if (c->family_version && c->family_version < SECMAP_GENL_VERSION)
		return (uint8_t)c->family_version;
	return SECMAP_GENL_VERSION;
}

struct nlmsghdr *client_put_request(struct secmap_client *c, uint16_t type, uint16_t flags,
				    uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(c->buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++c->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

/* CTRL_ATTR_MCAST_GROUPS: find the id of the "events" group. */
static int parse_mcast_groups(const struct nlattr *groups, struct secmap_client *c)
{
	const struct nlattr *grp, *attr;

	if (mnl_attr_validate(groups, MNL_TYPE_NESTED) < 0)
		return -EPROTO;
	mnl_attr_for_each_nested(grp, groups) {
		const char *name = NULL;
		bool have_id = false;
		uint32_t id = 0;

		if (mnl_attr_validate(grp, MNL_TYPE_NESTED) < 0)
			return -EPROTO;
		mnl_attr_for_each_nested(attr, grp) {
			switch (mnl_attr_get_type(attr)) {
			case CTRL_ATTR_MCAST_GRP_NAME:
				if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
					return -EPROTO;
				name = mnl_attr_get_str(attr);
				break;
			case CTRL_ATTR_MCAST_GRP_ID:
				if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
					return -EPROTO;
				id = mnl_attr_get_u32(attr);
				have_id = true;
				break;
			}
		}
		if (name && have_id && id && !strcmp(name, SECMAP_MCGRP_EVENTS))
			c->mcgrp_events = id;
	}
	return 0;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct recv_ctx *ctx = data;
	const struct nlattr *attr;

	if (nlh->nlmsg_type != GENL_ID_CTRL ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr))
		goto bad;
	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(attr)) {
		case CTRL_ATTR_FAMILY_ID:
			if (mnl_attr_validate(attr, MNL_TYPE_U16) < 0)
				goto bad;
			ctx->client->family = mnl_attr_get_u16(attr);
			ctx->have_family = true;
			break;
		case CTRL_ATTR_VERSION:
			if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
				goto bad;
			ctx->client->family_version = mnl_attr_get_u32(attr);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			if (parse_mcast_groups(attr, ctx->client))
				goto bad;
			break;
		}
	}
	return MNL_CB_OK;
bad:
	ctx->err = -EPROTO;
	return MNL_CB_ERROR;
}

static int client_resolve_family(struct secmap_client *c)
{
	struct recv_ctx ctx = { .client = c };
	struct nlmsghdr *nlh;
	int err;

	nlh = client_put_request(c, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY, 1);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, SECMAP_GENL_NAME);
	err = client_run(c, nlh, family_cb, &ctx);
	if (err)
		return err;
	return ctx.have_family ? 0 : -EPROTO;
}

SECMAP_EXPORT int secmap_client_open(struct secmap_client **client)
{
	struct secmap_client *c;
	int err;

	if (!client)
		return libsecmap_err(-EINVAL);
	*client = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return libsecmap_err(-ENOMEM);
	c->buf_size = SECMAP_RECV_SIZE;
	c->buf = malloc(c->buf_size);
	if (!c->buf) {
		err = -ENOMEM;
		goto fail;
	}
	c->seq = (unsigned int)time(NULL);
	err = client_socket_open(c);
	if (err)
		goto fail;
	err = client_resolve_family(c);
	if (err)
		goto fail;
	*client = c;
	return 0;
fail:
	secmap_client_close(c);
	return libsecmap_err(err);
}

SECMAP_EXPORT int secmap_client_set_recv_size(struct secmap_client *client, size_t bytes)
{
	char *buf;

	if (!client || bytes < 4096)
		return libsecmap_err(-EINVAL);
	buf = realloc(client->buf, bytes);
	if (!buf)
		return libsecmap_err(-ENOMEM);
	client->buf = buf;
	client->buf_size = bytes;
	/* A fresh socket: the kernel remembers the largest read of the old one. */
	client_socket_close(client);
	return libsecmap_err(client_socket_open(client));
}

void client_free_events(struct secmap_event **evs, size_t from, size_t n)
{
	for (; from < n; from++)
		secmap_event_free(evs[from]);
	free(evs);
}

SECMAP_EXPORT void secmap_client_close(struct secmap_client *client)
{
	if (!client)
		return;
	client_free_events(client->replay, client->replay_off, client->nr_replay);
	client_socket_close(client);
	if (client->ev_nl)
		mnl_socket_close(client->ev_nl);
	free(client->ev_buf);
	free(client->buf);
	free(client);
}


static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
	struct recv_ctx *ctx = data;
	int err;

	if (nlh->nlmsg_type != ctx->client->family)
		err = -EPROTO;
	else
		err = libsecmap_parse_module_msg(nlh, ctx->snap);
	if (err) {
		ctx->err = err;
		return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

/*
 * Ask for the section table where the family knows it: the kernel then
 * builds two attributes per module instead of five per section.
 */
static void put_compact(const struct secmap_client *c, struct nlmsghdr *nlh)
{
	if (client_request_version(c) >= 2)
		mnl_attr_put(nlh, SECMAP_A_MODULE_COMPACT, 0, NULL);
}

static int client_dump_once(void *arg, struct secmap_snapshot *snap)
{
	struct secmap_client *c = arg;
	struct recv_ctx ctx = { .client = c, .snap = snap };
	struct nlmsghdr *nlh;

	nlh = client_put_request(c, c->family, NLM_F_DUMP, SECMAP_CMD_MODULE_GET,
			       client_request_version(c));
	put_compact(c, nlh);
	return client_run(c, nlh, dump_cb, &ctx);
}

int libsecmap_dump_retry(int (*once)(void *arg, struct secmap_snapshot *snap), void *arg,
			 unsigned long *retries, struct secmap_snapshot **snapshot)
{
	struct secmap_snapshot *snap;
	int err, tries;

	*snapshot = NULL;
	for (tries = 1;; tries++) {
		snap = libsecmap_snapshot_new();
		if (!snap)
			return libsecmap_err(-ENOMEM);
		err = once(arg, snap);
		if (!err) {
			*snapshot = snap;
			return 0;
		}
		secmap_snapshot_free(snap);
		/* -EINTR: NLM_F_DUMP_INTR, modules came or went mid-dump. */
		if (err != -EINTR)
			return libsecmap_err(err);
		if (tries >= SECMAP_DUMP_MAX_TRIES)
			return libsecmap_err(-EBUSY);
		(*retries)++;
	}
}

/* A snapshot includes every event up to @seq: continue right after it. */
void client_events_covered(struct libsecmap_event_state *st, uint64_t seq)
{
	st->last_seq = seq;
	st->started = true;
	st->covered_seq = seq;
	st->overrun = false;
}

/*
 * A dump and the sequence number of the last event it includes: INFO
 * before and after must show the same generation, else nothing tells
 * which events it missed; retried like NLM_F_DUMP_INTR.
 */
int client_dump_covered(struct secmap_client *c, struct secmap_snapshot **snapshot,
			uint64_t *covered_seq)
{
	SECMAP_OPTS(secmap_info, before);
	SECMAP_OPTS(secmap_info, after);
	struct secmap_snapshot *snap;
	int err, tries;

	*snapshot = NULL;
	for (tries = 1;; tries++) {
		err = secmap_client_info(c, &before);
		if (err)
			return err;
		err = libsecmap_dump_retry(client_dump_once, c, &c->dump_retries, &snap);
		if (err)
			return err;
		err = secmap_client_info(c, &after);
		if (err) {
			secmap_snapshot_free(snap);
			return err;
		}
		if (before.generation == after.generation) {
			snap->time_local_ns = after.time_local_ns;
			snap->time_mono_ns = after.time_mono_ns;
			*snapshot = snap;
			*covered_seq = after.event_seq;
			return 0;
		}
		secmap_snapshot_free(snap);
		if (tries >= SECMAP_DUMP_MAX_TRIES)
			return libsecmap_err(-EBUSY);
		c->dump_retries++;
	}
}

SECMAP_EXPORT int secmap_client_dump(struct secmap_client *client,
				     struct secmap_snapshot **snapshot)
{
	uint64_t covered;
	int err;

	if (!client || !snapshot)
		return libsecmap_err(-EINVAL);
	if (!client->ev_nl) {
		err = libsecmap_dump_retry(client_dump_once, client, &client->dump_retries,
					   snapshot);
	} else {
		/* Subscribed: events continue exactly where this snapshot ends. */
		err = client_dump_covered(client, snapshot, &covered);
		if (!err)
			client_events_covered(&client->ev_state, covered);
	}
	/*
	 * netlink refuses a dump with -EPROTONOSUPPORT once the family's module
	 * is being unloaded (and genetlink with -ENOENT once it is gone): either
	 * way, secmap is not loaded any more.
	 */
	return err == -EPROTONOSUPPORT ? -ENOENT : err;
}

SECMAP_EXPORT unsigned long secmap_client_dump_retries(const struct secmap_client *client)
{
	return client ? client->dump_retries : 0;
}

static int client_get_once(struct secmap_client *c, const char *name,
			   struct secmap_snapshot *snap)
{
	struct recv_ctx ctx = { .client = c, .snap = snap };
	struct nlmsghdr *nlh;
	int err;

	nlh = client_put_request(c, c->family, NLM_F_ACK, SECMAP_CMD_MODULE_GET,
			       client_request_version(c));
	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, name);
	put_compact(c, nlh);
	err = client_run(c, nlh, dump_cb, &ctx);
	if (!err && secmap_snapshot_module_count(snap) != 1)
		err = -EPROTO;
	return err;
}

SECMAP_EXPORT int secmap_client_get(struct secmap_client *client, const char *name,
				    struct secmap_snapshot **snapshot)
{
	struct secmap_snapshot *snap;
	char *alt = NULL, *p;
	int err;

	if (!client || !name || !*name || !snapshot)
		return libsecmap_err(-EINVAL);
	*snapshot = NULL;
	/* Longer than the kernel allows a module name: cannot be loaded. */
	if (strlen(name) > SECMAP_MODULE_NAME_MAX)
		return libsecmap_err(-ENOENT);
	snap = libsecmap_snapshot_new();
	if (!snap)
		return libsecmap_err(-ENOMEM);
	err = client_get_once(client, name, snap);
	/* The kernel spells module names with '_', users with either. */
	if (err == -ENOENT && strchr(name, '-')) {
		alt = strdup(name);
		if (!alt) {
			err = -ENOMEM;
		} else {
			for (p = alt; *p; p++)
				*p = libsecmap_modname_char(*p);
			err = client_get_once(client, alt, snap);
			free(alt);
		}
	}
	if (err) {
		secmap_snapshot_free(snap);
		return libsecmap_err(err);
	}
	*snapshot = snap;
	return 0;
}

static int info_cb(const struct nlmsghdr *nlh, void *data)
{
	struct recv_ctx *ctx = data;

	if (nlh->nlmsg_type != ctx->client->family || ctx->have_info ||
	    libsecmap_parse_info_msg(nlh, ctx->info)) {
		ctx->err = -EPROTO;
		return MNL_CB_ERROR;
	}
	ctx->have_info = true;
	return MNL_CB_OK;
}

SECMAP_EXPORT int secmap_client_info(struct secmap_client *client, struct secmap_info *info)
{
	struct recv_ctx ctx = { .client = client, .info = info };
	struct nlmsghdr *nlh;
	int err;

	if (!client || !info || info->sz < offsetofend(struct secmap_info, time_mono_ns))
		return libsecmap_err(-EINVAL);
	nlh = client_put_request(client, client->family, NLM_F_ACK, SECMAP_CMD_INFO_GET,
			       client_request_version(client));
	err = client_run(client, nlh, info_cb, &ctx);
	if (!err && !ctx.have_info)
		err = -EPROTO;
	return err ? libsecmap_err(err) : 0;
}

