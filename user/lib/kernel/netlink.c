// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* libsecmap netlink side: socket, family lookup, dump and reply parsing. */
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

#include "internal.h"

#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif
#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

/*
 * The kernel sizes dump skbs up to 32 KiB when the reader offers that much.
 * Larger datagrams (a doit reply or an event for a module with very many
 * sections) are measured first and the buffer grows to fit.
 */
#define SECMAP_RECV_SIZE 32768

/* Events come in bursts (modprobe of a stack of modules): room for many. */
#define SECMAP_EVENT_RCVBUF (1 << 20)

/* Longest module name any kernel accepts: MODULE_NAME_LEN - 1 on 64-bit. */
#define SECMAP_MODULE_NAME_MAX 55

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct secmap_client {
	struct mnl_socket *nl;
	unsigned int portid;
	unsigned int seq;
	uint16_t family;
	uint32_t family_version;	/* 2 and later: the section table */
	uint32_t mcgrp_events;		/* 0: the family has no "events" group */
	unsigned long dump_retries;
	char *buf;
	size_t buf_size;

	/* The "events" socket, kept apart so replies and events never mix. */
	struct mnl_socket *ev_nl;
	char *ev_buf;
	size_t ev_size;
	size_t ev_len;			/* bytes of the last datagram in ev_buf */
	size_t ev_off;			/* of those, already handed out */
	struct libsecmap_event_state ev_state;
	/* Events the kernel's journal gave back after a loss, not yet handed out. */
	struct secmap_event **replay;
	size_t nr_replay, replay_off;
	uint64_t replayed;		/* in all */
};

struct recv_ctx {
	struct secmap_client *client;
	struct secmap_snapshot *snap;
	struct secmap_info *info;
	/* EVENTS_REPLAY: the events, in the order given. */
	struct secmap_event **evs;
	size_t nr_evs, cap_evs;
	int err;
	/* Saw the last message of the exchange: nothing is left queued. */
	bool done;
	bool have_family;
	bool have_info;
};

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
static ssize_t event_recv(int fd, char **buf, size_t *size)
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

static int ctl_noop(const struct nlmsghdr *nlh, void *data)
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
	[NLMSG_NOOP]	= ctl_noop,
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
static int run_replies(struct mnl_socket *nl, char **buf, size_t *size, unsigned int seq,
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
static int client_run(struct secmap_client *c, struct nlmsghdr *req, mnl_cb_t cb,
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
		err = run_replies(c->nl, &c->buf, &c->buf_size, req->nlmsg_seq, cb, ctx);
	if (!ctx->done)
		client_socket_close(c);
	return err;
}

/*
 * The family version to ask for: ours, or the module's if it is older, as
 * it refuses any version above its own.
 */
static uint8_t request_version(const struct secmap_client *c)
{
	if (c->family_version && c->family_version < SECMAP_GENL_VERSION)
		return (uint8_t)c->family_version;
	return SECMAP_GENL_VERSION;
}

static struct nlmsghdr *put_genl_request(struct secmap_client *c, uint16_t type, uint16_t flags,
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

	nlh = put_genl_request(c, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY, 1);
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

static void free_events(struct secmap_event **evs, size_t from, size_t n)
{
	for (; from < n; from++)
		secmap_event_free(evs[from]);
	free(evs);
}

SECMAP_EXPORT void secmap_client_close(struct secmap_client *client)
{
	if (!client)
		return;
	free_events(client->replay, client->replay_off, client->nr_replay);
	client_socket_close(client);
	if (client->ev_nl)
		mnl_socket_close(client->ev_nl);
	free(client->ev_buf);
	free(client->buf);
	free(client);
}

/*
 * Module messages are walked with the inline helpers below rather than
 * libmnl's accessors, which are calls into the shared library: five to
 * seven per attribute, and a 1000-module dump has over 100000 of them.
 * Same rules as mnl_attr_ok(): an attribute is used only if its header
 * fits in what is left and its length covers the header and fits too.
 * The checks after them are mnl_attr_validate()'s, made exact.
 */
static inline const struct nlattr *attr_first(const void *payload)
{
	return payload;
}

static inline bool attr_fits(const struct nlattr *attr, const void *tail)
{
	ptrdiff_t left = (const char *)tail - (const char *)attr;

	return left >= (ptrdiff_t)sizeof(*attr) && attr->nla_len >= sizeof(*attr) &&
	       attr->nla_len <= left;
}

static inline const struct nlattr *attr_next(const struct nlattr *attr)
{
	return (const struct nlattr *)((const char *)attr + MNL_ALIGN(attr->nla_len));
}

static inline uint16_t attr_type(const struct nlattr *attr)
{
	return attr->nla_type & NLA_TYPE_MASK;
}

static inline uint16_t attr_len(const struct nlattr *attr)
{
	return attr->nla_len - MNL_ATTR_HDRLEN;
}

static inline const void *attr_data(const struct nlattr *attr)
{
	return (const char *)attr + MNL_ATTR_HDRLEN;
}

static inline const void *nest_tail(const struct nlattr *nest)
{
	return (const char *)attr_data(nest) + attr_len(nest);
}

/* Every attribute from @start up to @tail; @attr is where the walk stopped. */
#define attr_for_each(attr, start, tail) \
	for ((attr) = attr_first(start); attr_fits((attr), (tail)); (attr) = attr_next(attr))
#define attr_for_each_nested(attr, nest) attr_for_each(attr, attr_data(nest), nest_tail(nest))
#define attr_for_each_in_msg(attr, nlh) \
	attr_for_each(attr, (const char *)mnl_nlmsg_get_payload(nlh) + \
		      MNL_ALIGN(sizeof(struct genlmsghdr)), mnl_nlmsg_get_payload_tail(nlh))


/* A non-empty NUL-terminated string, seen once: into *@name, its length into *@len. */
static int attr_name(const struct nlattr *attr, const char **name, size_t *len)
{
	const char *str = attr_data(attr);
	uint16_t size = attr_len(attr);

	if (*name || !size || str[size - 1] || !str[0])
		return -EPROTO;
	*name = str;
	*len = strlen(str);
	return 0;
}

/* A nest: empty, or room for at least one attribute header. */
static bool attr_nest_ok(const struct nlattr *attr)
{
	uint16_t size = attr_len(attr);

	return !size || size >= MNL_ATTR_HDRLEN;
}

/* A u32 attribute of exactly four bytes, seen once. */
static int attr_u32(const struct nlattr *attr, bool *seen, uint32_t *val)
{
	if (*seen || attr_len(attr) != sizeof(uint32_t))
		return -EPROTO;
	memcpy(val, attr_data(attr), sizeof(*val));
	*seen = true;
	return 0;
}

/* A u64 attribute of exactly eight bytes (any alignment), seen once. */
static int attr_u64(const struct nlattr *attr, bool *seen, uint64_t *val)
{
	if (*seen || attr_len(attr) != sizeof(uint64_t))
		return -EPROTO;
	memcpy(val, attr_data(attr), sizeof(*val));
	*seen = true;
	return 0;
}

/*
 * The walks silently stop at an attribute that overruns its container;
 * whatever is left past @attr beyond alignment slack means the message
 * was cut or corrupted.
 */
static bool has_garbage(const void *attr, const void *tail)
{
	return (const char *)tail - (const char *)attr >= (ptrdiff_t)sizeof(struct nlattr);
}

static int parse_section(const struct nlattr *nest, struct secmap_module *mod,
			 struct libsecmap_pool *pool)
{
	bool have_addr = false, have_flags = false, have_region = false;
	const struct nlattr *attr;
	const char *name = NULL, *copy;
	uint32_t flags = 0, region = 0;
	uint64_t addr = 0;
	size_t len = 0;

	attr_for_each_nested(attr, nest) {
		switch (attr_type(attr)) {
		case SECMAP_A_SECTION_NAME:
			if (attr_name(attr, &name, &len))
				return -EPROTO;
			break;
		case SECMAP_A_SECTION_ADDR:
			if (attr_u64(attr, &have_addr, &addr))
				return -EPROTO;
			break;
		case SECMAP_A_SECTION_FLAGS:
			if (attr_u32(attr, &have_flags, &flags))
				return -EPROTO;
			break;
		case SECMAP_A_SECTION_REGION:
			/* secmap_section_region() returns an int. */
			if (attr_u32(attr, &have_region, &region) || region > INT_MAX)
				return -EPROTO;
			break;
		default:
			/* PAD, and whatever newer kernels add. */
			break;
		}
	}
	if (has_garbage(attr, nest_tail(nest)) || !name || !have_addr)
		return -EPROTO;
	copy = libsecmap_pool_intern(pool, name, len);
	if (!copy)
		return -ENOMEM;
	return libsecmap_module_add_section(mod, copy, addr, flags,
					    have_region ? (int)region : -1);
}

static int parse_region(const struct nlattr *nest, struct secmap_module *mod)
{
	bool have_type = false, have_base = false, have_size = false;
	struct secmap_region region = { 0 };
	const struct nlattr *attr;

	attr_for_each_nested(attr, nest) {
		switch (attr_type(attr)) {
		case SECMAP_A_REGION_TYPE:
			if (attr_u32(attr, &have_type, &region.type))
				return -EPROTO;
			break;
		case SECMAP_A_REGION_BASE:
			if (attr_u64(attr, &have_base, &region.base))
				return -EPROTO;
			break;
		case SECMAP_A_REGION_SIZE:
			if (attr_u64(attr, &have_size, &region.size))
				return -EPROTO;
			break;
		default:
			break;
		}
	}
	if (has_garbage(attr, nest_tail(nest)) || !have_type || !have_base || !have_size)
		return -EPROTO;
	return libsecmap_module_add_region(mod, &region);
}

static int parse_event_nest(const struct nlattr *nest, struct secmap_event *ev)
{
	bool have_seq = false, have_local = false, have_mono = false;
	const struct nlattr *attr;

	attr_for_each_nested(attr, nest) {
		switch (attr_type(attr)) {
		case SECMAP_A_EVENT_SEQ:
			if (attr_u64(attr, &have_seq, &ev->seq))
				return -EPROTO;
			break;
		case SECMAP_A_EVENT_TIME_LOCAL_NS:
			if (attr_u64(attr, &have_local, &ev->time_local_ns))
				return -EPROTO;
			break;
		case SECMAP_A_EVENT_TIME_MONO_NS:
			if (attr_u64(attr, &have_mono, &ev->time_mono_ns))
				return -EPROTO;
			break;
		default:
			break;
		}
	}
	/* Sequence numbers start at 1: 0 would read as "nothing seen yet". */
	if (has_garbage(attr, nest_tail(nest)) || !have_seq || !ev->seq)
		return -EPROTO;
	return 0;
}

/*
 * The generic netlink header of a secmap message, or NULL if there is
 * none. libmnl walks attributes up to the *aligned* end of the message, so
 * an unaligned length would let it read past it. The kernel pads every
 * attribute, hence never sends one.
 */
static const struct genlmsghdr *genl_header(const struct nlmsghdr *nlh)
{
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN || nlh->nlmsg_len % MNL_ALIGNTO ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr))
		return NULL;
	return mnl_nlmsg_get_payload(nlh);
}

/* Size @mod's arrays for the sections and regions @nlh holds, in one go. */
static int reserve_module(const struct nlmsghdr *nlh, struct secmap_module *mod)
{
	size_t nr_sections = 0, nr_regions = 0;
	const struct nlattr *attr;

	attr_for_each_in_msg(attr, nlh) {
		if (attr_type(attr) == SECMAP_A_MODULE_SECTION)
			nr_sections++;
		else if (attr_type(attr) == SECMAP_A_MODULE_SECTION_TABLE)
			nr_sections += attr_len(attr) / sizeof(struct secmap_section_desc);
		else if (attr_type(attr) == SECMAP_A_MODULE_REGION)
			nr_regions++;
	}
	return libsecmap_module_reserve(mod, nr_sections, nr_regions);
}

/*
 * SECMAP_A_MODULE_SECTION_TABLE, its names in @names: every entry as a
 * SECMAP_A_MODULE_SECTION nest would be read, each name a non-empty string
 * that ends inside @names.
 */
static int parse_section_table(const struct nlattr *table, const struct nlattr *names,
			       struct secmap_module *mod, struct libsecmap_pool *pool)
{
	const char *desc_at = attr_data(table), *name_at, *name, *end;
	size_t i, n = attr_len(table) / sizeof(struct secmap_section_desc);
	struct secmap_section_desc desc;
	const char *copy;
	int err;

	if (attr_len(table) % sizeof(desc) || !names)
		return -EPROTO;
	name_at = attr_data(names);
	for (i = 0; i < n; i++) {
		/* The attribute is only 4-byte aligned where nothing pads it. */
		memcpy(&desc, desc_at + i * sizeof(desc), sizeof(desc));
		if (desc.name_off >= attr_len(names) ||
		    (desc.region != SECMAP_SECTION_NO_REGION && desc.region > INT_MAX))
			return -EPROTO;
		name = name_at + desc.name_off;
		end = memchr(name, '\0', attr_len(names) - desc.name_off);
		if (!end || end == name)
			return -EPROTO;
		copy = libsecmap_pool_intern(pool, name, (size_t)(end - name));
		if (!copy)
			return -ENOMEM;
		err = libsecmap_module_add_section(mod, copy, desc.addr, desc.flags,
						   desc.region == SECMAP_SECTION_NO_REGION ?
						   -1 : (int)desc.region);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Fill @mod from the top-level attributes of @nlh, its strings from
 * @pool; with @ev, also the event nest, which is then required. On
 * failure the caller releases @mod.
 */
static int parse_module_attrs(const struct nlmsghdr *nlh, struct secmap_module *mod,
			      struct libsecmap_pool *pool, struct secmap_event *ev)
{
	bool have_state = false, have_taint = false, have_event = false;
	const struct nlattr *attr, *table = NULL, *names = NULL;
	const char *name = NULL;
	size_t len = 0;
	int err;

	err = reserve_module(nlh, mod);
	if (err)
		return err;
	attr_for_each_in_msg(attr, nlh) {
		switch (attr_type(attr)) {
		case SECMAP_A_MODULE_NAME:
			if (attr_name(attr, &name, &len))
				return -EPROTO;
			break;
		case SECMAP_A_MODULE_SECTION:
			if (!attr_nest_ok(attr))
				return -EPROTO;
			err = parse_section(attr, mod, pool);
			if (err)
				return err;
			break;
		case SECMAP_A_MODULE_STATE:
			if (attr_u32(attr, &have_state, &mod->state))
				return -EPROTO;
			break;
		case SECMAP_A_MODULE_TAINT:
			if (attr_u64(attr, &have_taint, &mod->taint))
				return -EPROTO;
			break;
		case SECMAP_A_MODULE_BUILD_ID:
			if (mod->build_id_len || attr_len(attr) == 0 ||
			    attr_len(attr) > SECMAP_BUILD_ID_MAX)
				return -EPROTO;
			mod->build_id_len = attr_len(attr);
			memcpy(mod->build_id, attr_data(attr), mod->build_id_len);
			break;
		case SECMAP_A_MODULE_REGION:
			if (!attr_nest_ok(attr))
				return -EPROTO;
			err = parse_region(attr, mod);
			if (err)
				return err;
			break;
		case SECMAP_A_MODULE_SECTION_TABLE:
			if (table)
				return -EPROTO;
			table = attr;
			break;
		case SECMAP_A_MODULE_SECTION_NAMES:
			if (names)
				return -EPROTO;
			names = attr;
			break;
		case SECMAP_A_MODULE_EVENT:
			/* Only notifications carry it; elsewhere it means nothing to us. */
			if (!ev)
				break;
			if (have_event || !attr_nest_ok(attr) || parse_event_nest(attr, ev))
				return -EPROTO;
			have_event = true;
			break;
		default:
			/* Attributes from a newer kernel: skip, as the ABI only appends. */
			break;
		}
	}
	if (has_garbage(attr, mnl_nlmsg_get_payload_tail(nlh)) || !name || (ev && !have_event) ||
	    (names && !table))
		return -EPROTO;
	if (table) {
		err = parse_section_table(table, names, mod, pool);
		if (err)
			return err;
	}
	mod->name = libsecmap_pool_strndup(pool, name, len);
	return mod->name ? 0 : -ENOMEM;
}

int libsecmap_parse_module_msg(const struct nlmsghdr *nlh, struct secmap_snapshot *snap)
{
	const struct genlmsghdr *genl = genl_header(nlh);
	struct secmap_module mod = { 0 };
	int err;

	if (!genl || genl->cmd != SECMAP_CMD_MODULE_GET)
		return libsecmap_err(-EPROTO);
	err = parse_module_attrs(nlh, &mod, &snap->pool, NULL);
	if (!err)
		err = libsecmap_snapshot_add_module(snap, &mod);
	libsecmap_module_release(&mod);
	return err ? libsecmap_err(err) : 0;
}

int libsecmap_parse_event_msg(const struct nlmsghdr *nlh, struct libsecmap_event_state *st,
			      struct secmap_event **event)
{
	const struct genlmsghdr *genl = genl_header(nlh);
	struct secmap_event *ev;
	int err;

	*event = NULL;
	if (!genl)
		return libsecmap_err(-EPROTO);
	switch (genl->cmd) {
	case SECMAP_CMD_MODULE_NEW_NTF:
	case SECMAP_CMD_MODULE_LIVE_NTF:
	case SECMAP_CMD_MODULE_GONE_NTF:
		break;
	default:
		/* A notification a newer kernel added, or not one at all. */
		return 0;
	}
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return libsecmap_err(-ENOMEM);
	ev->type = genl->cmd;
	err = parse_module_attrs(nlh, &ev->module, &ev->pool, ev);
	if (err) {
		secmap_event_free(ev);
		return libsecmap_err(err);
	}
	/* Sent before a snapshot the caller already has: nothing new. */
	if (st->covered_seq) {
		if (ev->seq <= st->covered_seq) {
			secmap_event_free(ev);
			return 0;
		}
		st->covered_seq = 0;
	}
	/* A number going backwards: the kernel module was reloaded; no gap. */
	if (st->started && ev->seq > st->last_seq)
		ev->lost = ev->seq - st->last_seq - 1;
	/* An overrun lost at least one, even if we cannot tell how many. */
	if (st->overrun && !ev->lost)
		ev->lost = 1;
	st->last_seq = ev->seq;
	st->started = true;
	st->overrun = false;
	*event = ev;
	return 0;
}

int libsecmap_parse_info_msg(const struct nlmsghdr *nlh, struct secmap_info *info)
{
	bool have_version = false, have_gen = false, have_hook = false, have_seq = false;
	bool have_local = false, have_mono = false;
	const struct genlmsghdr *genl = genl_header(nlh);
	struct secmap_info out = { 0 };
	const struct nlattr *attr;
	const char *release = NULL;

	if (!genl || genl->cmd != SECMAP_CMD_INFO_GET)
		return libsecmap_err(-EPROTO);
	mnl_attr_for_each(attr, nlh, sizeof(*genl)) {
		switch (mnl_attr_get_type(attr)) {
		case SECMAP_A_INFO_VERSION:
			if (attr_u32(attr, &have_version, &out.version))
				return libsecmap_err(-EPROTO);
			break;
		case SECMAP_A_INFO_GENERATION:
			if (attr_u64(attr, &have_gen, &out.generation))
				return libsecmap_err(-EPROTO);
			break;
		case SECMAP_A_INFO_RELEASE:
			if (release || mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0 ||
			    strlen(mnl_attr_get_str(attr)) >= sizeof(out.release))
				return libsecmap_err(-EPROTO);
			release = mnl_attr_get_str(attr);
			break;
		case SECMAP_A_INFO_HOOK:
			if (attr_u32(attr, &have_hook, &out.hook))
				return libsecmap_err(-EPROTO);
			break;
		case SECMAP_A_INFO_EVENT_SEQ:
			if (attr_u64(attr, &have_seq, &out.event_seq))
				return libsecmap_err(-EPROTO);
			break;
		/* Optional: older secmap modules do not send the clocks. */
		case SECMAP_A_INFO_TIME_LOCAL_NS:
			if (attr_u64(attr, &have_local, &out.time_local_ns))
				return libsecmap_err(-EPROTO);
			break;
		case SECMAP_A_INFO_TIME_MONO_NS:
			if (attr_u64(attr, &have_mono, &out.time_mono_ns))
				return libsecmap_err(-EPROTO);
			break;
		default:
			break;
		}
	}
	if (has_garbage(attr, mnl_nlmsg_get_payload_tail(nlh)) || !have_version || !have_gen ||
	    !release || !have_hook || !have_seq)
		return libsecmap_err(-EPROTO);
	strcpy(out.release, release);
	*info = out;
	return 0;
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
	if (request_version(c) >= 2)
		mnl_attr_put(nlh, SECMAP_A_MODULE_COMPACT, 0, NULL);
}

static int client_dump_once(void *arg, struct secmap_snapshot *snap)
{
	struct secmap_client *c = arg;
	struct recv_ctx ctx = { .client = c, .snap = snap };
	struct nlmsghdr *nlh;

	nlh = put_genl_request(c, c->family, NLM_F_DUMP, SECMAP_CMD_MODULE_GET,
			       request_version(c));
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
static void ev_state_covered(struct libsecmap_event_state *st, uint64_t seq)
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
static int client_dump_covered(struct secmap_client *c, struct secmap_snapshot **snapshot,
			       uint64_t *covered_seq)
{
	struct secmap_info before, after;
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
			ev_state_covered(&client->ev_state, covered);
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

	nlh = put_genl_request(c, c->family, NLM_F_ACK, SECMAP_CMD_MODULE_GET,
			       request_version(c));
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

	if (!client || !info)
		return libsecmap_err(-EINVAL);
	nlh = put_genl_request(client, client->family, NLM_F_ACK, SECMAP_CMD_INFO_GET,
			       request_version(client));
	err = client_run(client, nlh, info_cb, &ctx);
	if (!err && !ctx.have_info)
		err = -EPROTO;
	return err ? libsecmap_err(err) : 0;
}

/*
 * SECMAP_CMD_EVENTS_SUBSCRIBE, sent on the events socket itself: the kernel
 * lists the socket a request comes from. Events that beat the ACK are
 * dropped: a dump made after subscribing includes them.
 */
static int subscribe_socket(struct secmap_client *c, struct mnl_socket *nl)
{
	struct recv_ctx ctx = { .client = c };
	struct nlmsghdr *nlh;

	nlh = put_genl_request(c, c->family, NLM_F_ACK, SECMAP_CMD_EVENTS_SUBSCRIBE,
			       request_version(c));
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	return run_replies(nl, &c->ev_buf, &c->ev_size, nlh->nlmsg_seq, ctl_noop, &ctx);
}

SECMAP_EXPORT int secmap_client_subscribe(struct secmap_client *client)
{
	int fd, flags, rcvbuf = SECMAP_EVENT_RCVBUF, one = 1, err;
	struct secmap_info info;
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
	ev_state_covered(&client->ev_state, info.event_seq);
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
	ev_state_covered(&c->ev_state, covered);
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

	nlh = put_genl_request(c, c->family, NLM_F_DUMP, SECMAP_CMD_EVENTS_REPLAY,
			       request_version(c));
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
		free_events(ctx.evs, 0, ctx.nr_evs);
		return client_resync(c, last_seq, gone, event);
	}
	c->replay = ctx.evs;
	c->nr_replay = ctx.nr_evs;
	c->replay_off = 1;
	c->replayed += ctx.nr_evs;
	ev_state_covered(&c->ev_state, ctx.evs[ctx.nr_evs - 1]->seq);
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
		n = event_recv(pfd.fd, &client->ev_buf, &client->ev_size);
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
