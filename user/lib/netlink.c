// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* libsecmap netlink side: socket, family lookup, dump and reply parsing. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
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
 * The kernel sizes dump skbs up to 32 KiB when the reader offers that much;
 * a smaller buffer would make recvmsg() truncate (MSG_TRUNC) a full batch.
 */
#define SECMAP_RECV_SIZE 32768

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A dump the kernel flags inconsistent (modules came or went) is retried. */
#define SECMAP_DUMP_TRIES 3

struct secmap_client {
	struct mnl_socket *nl;
	unsigned int portid;
	unsigned int seq;
	uint16_t family;
	char *buf;
};

struct recv_ctx {
	struct secmap_client *client;
	struct secmap_snapshot *snap;
	int err;
	/* Saw the last message of the exchange: nothing is left queued. */
	bool done;
	bool have_family;
};

static void client_socket_close(struct secmap_client *c)
{
	if (c->nl)
		mnl_socket_close(c->nl);
	c->nl = NULL;
}

static int client_socket_open(struct secmap_client *c)
{
	int one = 1, err;

	c->nl = mnl_socket_open(NETLINK_GENERIC);
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

/* Send @req and feed every reply to @cb until the exchange ends. */
static int client_run(struct secmap_client *c, struct nlmsghdr *req, mnl_cb_t cb,
		      struct recv_ctx *ctx)
{
	/* Replies land in the buffer @req lives in: keep what we need of it. */
	unsigned int seq = req->nlmsg_seq;
	ssize_t n;
	int ret;

	if (!c->nl) {
		ret = client_socket_open(c);
		if (ret)
			return ret;
	}
	if (mnl_socket_sendto(c->nl, req, req->nlmsg_len) < 0)
		return -errno;
	for (;;) {
		n = mnl_socket_recvfrom(c->nl, c->buf, SECMAP_RECV_SIZE);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* libmnl reports a truncated datagram as ENOSPC. */
			return errno == ENOSPC ? -EMSGSIZE : -errno;
		}
		if (n == 0)
			return -EPROTO;
		ret = mnl_cb_run2(c->buf, n, seq, c->portid, cb, ctx,
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

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct recv_ctx *ctx = data;
	const struct nlattr *attr;

	if (nlh->nlmsg_type != GENL_ID_CTRL ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr))
		goto bad;
	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) != CTRL_ATTR_FAMILY_ID)
			continue;
		if (mnl_attr_validate(attr, MNL_TYPE_U16) < 0)
			goto bad;
		ctx->client->family = mnl_attr_get_u16(attr);
		ctx->have_family = true;
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
	c->buf = malloc(SECMAP_RECV_SIZE);
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

SECMAP_EXPORT void secmap_client_close(struct secmap_client *client)
{
	if (!client)
		return;
	client_socket_close(client);
	free(client->buf);
	free(client);
}

static int validate_name(const struct nlattr *attr)
{
	if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
		return -EPROTO;
	return *mnl_attr_get_str(attr) ? 0 : -EPROTO;
}

/*
 * mnl_attr_for_each*() silently stop at an attribute that overruns its
 * container; whatever is left past @attr beyond alignment slack means the
 * message was cut or corrupted.
 */
static bool has_garbage(const void *attr, const void *tail)
{
	return (const char *)tail - (const char *)attr >= (ptrdiff_t)sizeof(struct nlattr);
}

static int parse_section(const struct nlattr *nest, struct secmap_module *mod)
{
	const void *tail = (const char *)mnl_attr_get_payload(nest) + mnl_attr_get_payload_len(nest);
	const struct nlattr *attr;
	const char *name = NULL;
	bool have_addr = false;
	uint64_t addr = 0;
	char *dup;
	int err;

	mnl_attr_for_each_nested(attr, nest) {
		switch (mnl_attr_get_type(attr)) {
		case SECMAP_A_SECTION_NAME:
			if (name || validate_name(attr))
				return -EPROTO;
			name = mnl_attr_get_str(attr);
			break;
		case SECMAP_A_SECTION_ADDR:
			if (have_addr || mnl_attr_validate(attr, MNL_TYPE_U64) < 0)
				return -EPROTO;
			addr = mnl_attr_get_u64(attr);
			have_addr = true;
			break;
		default:
			/* PAD, and whatever newer kernels add. */
			break;
		}
	}
	if (has_garbage(attr, tail) || !name || !have_addr)
		return -EPROTO;
	dup = strdup(name);
	if (!dup)
		return -ENOMEM;
	err = libsecmap_module_add_section(mod, dup, addr);
	if (err)
		free(dup);
	return err;
}

int libsecmap_parse_module_msg(const struct nlmsghdr *nlh, struct secmap_snapshot *snap)
{
	struct secmap_module mod = { 0 };
	const struct genlmsghdr *genl;
	const struct nlattr *attr;
	const char *name = NULL;
	int err = -EPROTO;

	/*
	 * libmnl walks attributes up to the *aligned* end of the message, so
	 * an unaligned length would let it read past it. The kernel pads
	 * every attribute, hence never sends one.
	 */
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN || nlh->nlmsg_len % MNL_ALIGNTO ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*genl))
		return libsecmap_err(-EPROTO);
	genl = mnl_nlmsg_get_payload(nlh);
	if (genl->cmd != SECMAP_CMD_MODULE_GET)
		return libsecmap_err(-EPROTO);

	mnl_attr_for_each(attr, nlh, sizeof(*genl)) {
		switch (mnl_attr_get_type(attr)) {
		case SECMAP_A_MODULE_NAME:
			if (name || validate_name(attr))
				goto out;
			name = mnl_attr_get_str(attr);
			break;
		case SECMAP_A_MODULE_SECTION:
			if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
				goto out;
			err = parse_section(attr, &mod);
			if (err)
				goto out;
			err = -EPROTO;
			break;
		default:
			/* Attributes from a newer kernel: skip, as the ABI only appends. */
			break;
		}
	}
	if (has_garbage(attr, mnl_nlmsg_get_payload_tail(nlh)) || !name)
		goto out;
	mod.name = strdup(name);
	if (!mod.name) {
		err = -ENOMEM;
		goto out;
	}
	err = libsecmap_snapshot_add_module(snap, &mod);
out:
	libsecmap_module_release(&mod);
	return err ? libsecmap_err(err) : 0;
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

static int client_dump_once(struct secmap_client *c, struct secmap_snapshot *snap)
{
	struct recv_ctx ctx = { .client = c, .snap = snap };
	struct nlmsghdr *nlh;
	int err;

	nlh = put_genl_request(c, c->family, NLM_F_DUMP, SECMAP_CMD_MODULE_GET,
			       SECMAP_GENL_VERSION);
	err = client_run(c, nlh, dump_cb, &ctx);
	/*
	 * Bailing out mid-dump leaves the rest of it queued on the socket,
	 * where it would confuse the next request: start over on a new one.
	 */
	if (!ctx.done)
		client_socket_close(c);
	return err;
}

SECMAP_EXPORT int secmap_client_dump(struct secmap_client *client,
				     struct secmap_snapshot **snapshot)
{
	struct secmap_snapshot *snap;
	int err, tries;

	if (!client || !snapshot)
		return libsecmap_err(-EINVAL);
	*snapshot = NULL;
	for (tries = 1;; tries++) {
		snap = libsecmap_snapshot_new();
		if (!snap)
			return libsecmap_err(-ENOMEM);
		err = client_dump_once(client, snap);
		if (!err) {
			*snapshot = snap;
			return 0;
		}
		secmap_snapshot_free(snap);
		if (err != -EINTR || tries >= SECMAP_DUMP_TRIES)
			return libsecmap_err(err);
	}
}
